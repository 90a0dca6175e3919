import FuzzSupport
import SXCore

/// The desktop app's `settings.properties`, read as `java.util.Properties` reads it, and the one
/// key sxkit rewrites in it (the stored passphrase, on `db rekey`) with every other byte kept.
@main
enum FuzzSettings: FuzzTarget {
    /// A value with every character `Properties.store` escapes.
    static let newValue = " new=value: #! \\ \t\n\r\u{0C} é"

    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        var file = JavaProperties(bytes: Array(bytes))
        _ = file.values
        let key = DesktopSettings.passphraseKey
        guard file.contains(key) else { return }
        let others = file.entries.filter { $0.key != key }
        file.replaceValue(of: key, with: newValue)
        precondition(file.value(key) == newValue, "a replaced value does not read back")
        precondition(file.entries.filter { $0.key != key } .map(\.value) == others.map(\.value), "replacing one value changed another")
        file.remove(key)
        precondition(!file.contains(key), "a removed key is still there")
        precondition(file.entries.map(\.value) == others.map(\.value), "removing one key changed another")
    }

    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        [
            ("desktop.properties", Array("""
            #Desktop settings
            #Tue Nov 21 10:00:00 UTC 2026
            EncryptedDBPassphrase=c2VjcmV0IHBhc3NwaHJhc2U\\=
            InitializationVectorDBPassphrase=AAECAwQFBgcICQoL
            InitialRandomDBPassphrase=false
            lastVersion=6.4

            """.utf8)),
            ("continuations.properties", Array("! comment\r\nEncryptedDBPassphrase : a\\\r\n   b\\\\\nkey\\ with\\ spaces\\u00e9\tvalue\\\nEncryptedDBPassphrase".utf8)),
        ]
    }
}
