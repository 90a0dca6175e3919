import SXCore
import SXCrypto
import SXDatabase
import SXArchive
import SXMedia
print(SQLCipherRuntime.sqliteVersion, SQLCipherRuntime.cipherVersion ?? "-", SodiumRuntime.version, ArchiveRuntime.version, VipsRuntime.version, VipsRuntime.supportedInputs)
