import SXCore

/// What `db test-key` found for one database (FORMATS §3).
public enum KeyTestOutcome: String, Sendable, Codable {
    /// The passphrase opens it (for a plaintext DB: no passphrase was given, and none is needed).
    case correct
    /// The file looks encrypted, and the passphrase does not open it with SQLCipher 4 or 3 settings.
    case wrongPassphrase
    /// Not a database: empty, truncated, another kind of file, or damaged.
    case notADatabase
    /// A plaintext SQLite database, but a passphrase was given.
    case notEncrypted
    /// No file at the path.
    case missing
}

public struct KeyTestResult: Sendable, Codable, Equatable {
    public var database: DatabaseTarget
    public var outcome: KeyTestOutcome
    /// The cipher settings that opened it, when it opened.
    public var cipher: CipherFormat?
    /// A sentence saying what was found.
    public var message: String

    /// Under sxkit's JSON vocabulary an item's result is its `status`.
    enum CodingKeys: String, CodingKey {
        case database, cipher, message
        case outcome = "status"
    }
}

/// Tests a passphrase against a database without changing anything on disk: the file is opened
/// immutable, or read from a private snapshot when it has a WAL.
public enum KeyTester {
    /// `named`: what the messages call the file when `target` is a private copy of it (an archive's entry).
    public static func test(_ target: DatabaseTarget, passphrase: SecretBytes, named: String? = nil) -> KeyTestResult {
        let name = named ?? target.path
        func result(_ outcome: KeyTestOutcome, _ cipher: CipherFormat? = nil, _ message: String) -> KeyTestResult {
            KeyTestResult(database: target, outcome: outcome, cipher: cipher, message: message)
        }
        switch ReadAccess.of(target.path) {
        case .missing:
            return result(.missing, nil, "no such file")
        case .plaintext where !passphrase.isEmpty:
            return result(.notEncrypted, .plaintext, PassphraseWording.notEncrypted(name))
        case .unusable(let reason):
            return result(.notADatabase, nil, reason)
        case .plaintext, .encrypted:
            break
        }
        do {
            let cipher = try ReadAccess.read(target.path, passphrase: passphrase) { _, cipher in cipher }
            switch cipher {
            case .plaintext: return result(.correct, cipher, "opens without a passphrase (the database is not encrypted)")
            case .sqlcipher4: return result(.correct, cipher, "the passphrase is correct (SQLCipher 4)")
            case .sqlcipher3: return result(.correct, cipher, "the passphrase is correct (SQLCipher 3 settings: opened with cipher_compatibility = 3)")
            }
        } catch let error as DatabaseError where error.isNotADatabase {
            if passphrase.isEmpty {
                return result(.wrongPassphrase, nil, "the database is encrypted, and no passphrase was given")
            }
            return result(.wrongPassphrase, nil, PassphraseWording.wrong(name))
        } catch let error as DatabaseError {
            return result(.notADatabase, nil, "cannot be read as a database: \(error.message) (\(error.codeName))")
        } catch {
            return result(.notADatabase, nil, "cannot be read: \(error)")
        }
    }
}
