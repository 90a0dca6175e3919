import SXCore

/// Plain-words observations about one opened database, for `db inspect`.
enum DatabaseFindings {
    static func of(_ r: DatabaseInspection) -> [String] {
        var out: [String] = []
        switch r.classification {
        case .plaintextSQLite:
            out.append("database is not encrypted: anyone who can read the file can read the chats")
        case .sqlcipher3:
            out.append("database uses SQLCipher 3 settings (PBKDF2-HMAC-SHA1, 64,000 iterations); changing or setting the passphrase again rewrites it with SQLCipher 4 defaults")
        default:
            break
        }
        if let d = r.details {
            if d.pageCount > 0, d.freelistPages * 10 > d.pageCount {
                out.append("\(d.freelistPages) of \(d.pageCount) pages are free (\(ByteCount.format(Int64(d.freelistPages * d.pageSize)))): VACUUM would reclaim them")
            }
            if d.autoVacuum != "full" {
                out.append("auto_vacuum is \(d.autoVacuum); the chat core creates databases with auto_vacuum = FULL")
            }
            if d.migrations == nil, !d.tables.isEmpty {
                out.append("there is no migrations table: this does not look like a database made by SimpleX")
            }
        }
        if let files = r.chat?.filesCheck {
            if !files.folderExists {
                out.append("the files folder \(files.filesFolder) does not exist")
            }
            if files.referencedMissing > 0 {
                out.append("\(files.referencedMissing) file(s) referenced by the chat database are missing from the files folder")
            }
            if files.unreferenced > 0 {
                out.append("\(files.unreferenced) file(s) (\(ByteCount.format(files.unreferencedBytes))) in the files folder are not referenced by the chat database (orphans)")
            }
            if files.plaintext > 0 {
                out.append("\(files.plaintext) referenced file(s) are stored unencrypted (the app's \"encrypt local files\" setting was off when they arrived)")
            }
            if files.unsafePaths > 0 {
                out.append("\(files.unsafePaths) file path(s) in the chat database are absolute or leave the files folder; they were not followed")
            }
        }
        if let integrity = r.integrity {
            if integrity.integrityCheck != ["ok"] {
                out.append("integrity_check found \(integrity.integrityCheck.count) problem(s): \(integrity.integrityCheck.prefix(3).joined(separator: "; "))")
            }
            if let cipher = integrity.cipherIntegrityCheck, !cipher.isEmpty {
                out.append("cipher_integrity_check found \(cipher.count) page(s) whose HMAC does not verify: \(cipher.prefix(3).joined(separator: "; "))")
            }
        }
        return out
    }
}
