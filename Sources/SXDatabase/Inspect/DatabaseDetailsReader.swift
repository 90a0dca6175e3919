import SXCore

/// Reads the facts of `db inspect` from an open (keyed) connection. Only queries: no pragma here
/// changes a setting.
struct DatabaseDetailsReader {
    let db: DatabaseConnection
    let format: CipherFormat

    func details() throws -> DatabaseDetails {
        let tables = try tableNames()
        var rows: [TableRows] = []
        for name in tables {
            do {
                rows.append(TableRows(name: name, rows: try count(name), error: nil))
            } catch let error as DatabaseError {
                rows.append(TableRows(name: name, rows: nil, error: "\(error.message) (\(error.codeName))"))
            }
        }
        return DatabaseDetails(
            pageSize: try int("PRAGMA page_size"),
            pageCount: try int("PRAGMA page_count"),
            freelistPages: try int("PRAGMA freelist_count"),
            textEncoding: try db.scalarText("PRAGMA encoding") ?? "?",
            userVersion: try int("PRAGMA user_version"),
            journalMode: try journalMode(),
            autoVacuum: Self.autoVacuumName(try int("PRAGMA auto_vacuum")),
            cipher: format == .plaintext ? nil : try cipherSettings(),
            tables: rows,
            indexCount: try int("SELECT count(*) FROM sqlite_master WHERE type = 'index'"),
            migrations: tables.contains("migrations") ? try migrations() : nil
        )
    }

    /// What the connection reports. An immutable connection says "delete" even for a WAL database;
    /// `JournalModeProbe` corrects that from page 1.
    private func journalMode() throws -> String {
        try db.scalarText("PRAGMA journal_mode") ?? "?"
    }

    func chatSummary(filesFolder: String?) throws -> ChatSummary {
        let tables = Set(try tableNames())
        func optionalCount(_ table: String) -> Int? { tables.contains(table) ? try? count(table) : nil }
        var summary = ChatSummary(users: optionalCount("users"), contacts: optionalCount("contacts"),
                                  groups: optionalCount("groups"), chatItems: optionalCount("chat_items"),
                                  files: optionalCount("files"), filesCheck: nil)
        if let filesFolder, tables.contains("files") {
            summary.filesCheck = try FilesFolderCheck.run(db: db, filesFolder: filesFolder)
        }
        return summary
    }

    /// Both checks run even when one stops: a page SQLCipher cannot decrypt makes `integrity_check`
    /// fail outright, while `cipher_integrity_check` names the page.
    func integrity() -> IntegrityReport {
        func check(_ pragma: String) -> [String] {
            do {
                return try db.rows("PRAGMA \(pragma)").compactMap { $0.first?.textValue }
            } catch let error as DatabaseError {
                return ["\(pragma) stopped: \(error.message) (\(error.codeName))"]
            } catch {
                return ["\(pragma) stopped: \(error)"]
            }
        }
        let integrity = check("integrity_check")
        let cipher = format == .plaintext ? nil : check("cipher_integrity_check")
        return IntegrityReport(integrityCheck: integrity, cipherIntegrityCheck: cipher,
                               ok: integrity == ["ok"] && (cipher ?? []).isEmpty)
    }

    private func cipherSettings() throws -> CipherSettings {
        func text(_ pragma: String) -> String? { (try? db.scalarText("PRAGMA \(pragma)")) ?? nil }
        return CipherSettings(
            format: format,
            cipherPageSize: text("cipher_page_size").flatMap { Int($0) },
            kdfIterations: text("kdf_iter").flatMap { Int($0) },
            kdfAlgorithm: text("cipher_kdf_algorithm"),
            hmacAlgorithm: text("cipher_hmac_algorithm"),
            useHMAC: text("cipher_use_hmac").map { $0 == "1" },
            plaintextHeaderSize: text("cipher_plaintext_header_size").flatMap { Int($0) }
        )
    }

    private func migrations() throws -> MigrationsSummary {
        let statement = try db.prepare("SELECT count(*), min(name), max(name), (SELECT ts FROM migrations ORDER BY name DESC LIMIT 1) FROM migrations")
        _ = try statement.step()
        return MigrationsSummary(count: Int(statement.int64(0)), first: statement.text(1), last: statement.text(2), lastTimestamp: statement.text(3))
    }

    func tableNames() throws -> [String] {
        try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0.first?.textValue }
    }

    private func count(_ table: String) throws -> Int {
        try int("SELECT count(*) FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"")
    }

    private func int(_ sql: String) throws -> Int { Int(try db.scalarInt(sql) ?? 0) }

    static func autoVacuumName(_ value: Int) -> String {
        switch value {
        case 0: "none"
        case 1: "full"
        case 2: "incremental"
        default: "\(value)"
        }
    }
}

extension ColumnValue {
    /// The value as text when it is text (or a number, printed).
    var textValue: String? {
        switch self {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .blob, .null: nil
        }
    }
}
