import SXCore

/// `db inspect`: everything that can be learnt about a data directory's databases without changing
/// a byte or a timestamp of them (DESIGN: read-only means read-only). Databases are opened
/// `immutable=1`, or from a private copy when they have a WAL (see `ReadOnlySnapshot`).
public struct DatabaseInspector: Sendable {
    public struct Options: Sendable {
        /// Adds `integrity_check` and `cipher_integrity_check` (they read every page).
        public var deep = false
        /// The files folder to check the chat DB's `files` rows against; by default the data directory's.
        public var filesFolder: String?
        /// Where the desktop app keeps `settings.properties`; checked for a stored passphrase.
        public var desktopSettingsPath: String?
        /// Where private snapshots of WAL databases are made (default $TMPDIR).
        public var snapshotFolder: String?
        public init(deep: Bool = false, filesFolder: String? = nil, desktopSettingsPath: String? = nil, snapshotFolder: String? = nil) {
            self.deep = deep
            self.filesFolder = filesFolder
            self.desktopSettingsPath = desktopSettingsPath
            self.snapshotFolder = snapshotFolder
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Inspects every database of `set`. `passphrase` nil means none was available: encrypted
    /// databases are then classified but not opened.
    public func inspect(_ set: DatabaseSet, passphrase: SecretBytes?) -> DataDirectoryInspection {
        let filesFolder = options.filesFolder ?? set.dataDirectory?.filesFolder
        // The databases are independent, and most of the time goes to SQLCipher's key derivation:
        // one core each.
        let targets = set.targets
        let databases = ParallelWork.map(count: targets.count, jobs: min(targets.count, ParallelWork.defaultJobs)) { i in
            inspect(targets[i], passphrase: passphrase, filesFolder: targets[i].role == .chat ? filesFolder : nil)
        }
        var findings: [String] = []
        if set.targets.count == 2 {
            let missing = databases.filter { $0.classification == .missing }
            if missing.count == 1 {
                findings.append("only one of the two databases is present: the \(missing[0].database.label) is missing (the two always travel together)")
            } else if missing.count == 2 {
                findings.append("no SimpleX databases here: neither \(Path.basename(set.targets[0].path)) nor \(Path.basename(set.targets[1].path)) exists")
            }
            let formats = Set(databases.compactMap { $0.details?.cipher?.format ?? ($0.details != nil ? .plaintext : nil) })
            if formats.count > 1 {
                findings.append("the two databases are encrypted differently (\(formats.map(\.rawValue).sorted().joined(separator: " and "))); the app expects one passphrase for both")
            }
        }
        if let path = options.desktopSettingsPath, (try? DesktopSettings.storedPassphrase(at: path)) != nil {
            findings.append("the passphrase is stored in the desktop app's settings (\(path)) as plain base64: anyone who can read that file can open the databases")
        }
        return DataDirectoryInspection(root: set.dataDirectory?.root, layout: set.dataDirectory?.layout,
                                       databases: databases, findings: findings)
    }

    /// Inspects one database file.
    public func inspect(_ target: DatabaseTarget, passphrase: SecretBytes?, filesFolder: String? = nil) -> DatabaseInspection {
        var result = DatabaseInspection(database: target, size: nil, classification: .missing, wal: nil, shm: nil,
                                        journal: nil, details: nil, chat: nil, integrity: nil, findings: [])
        guard let st = POSIXFile.linkStatus(target.path) else {
            result.findings.append("the file does not exist")
            return result
        }
        result.size = Int64(st.st_size)
        result.shm = companion(DataDirectoryNames.shm(of: target.path))
        result.journal = companion(DataDirectoryNames.rollbackJournal(of: target.path))
        if POSIXFile.linkStatus(DataDirectoryNames.wal(of: target.path)) != nil {
            result.wal = try? WALFile.summarize(walPath: DataDirectoryNames.wal(of: target.path), shmPath: result.shm?.path)
        }
        let kind: DatabaseFileKind
        do {
            kind = try DatabaseFileKind.classify(path: target.path)
        } catch {
            result.classification = .notADatabase
            result.findings.append("the file cannot be read: \(error)")
            return result
        }
        switch kind {
        case .missing:
            result.findings.append("the file does not exist")
        case .empty:
            result.classification = .empty
            result.findings.append("the file is empty (0 bytes): SQLite would treat it as a new, empty database")
        case .notADatabase(let reason):
            result.classification = .notADatabase
            result.findings.append("the file is not a database: \(reason)")
        case .encryptedOrNotDatabase(looksRandom: false):
            result.classification = .notADatabase
            result.findings.append("the file is not a database: it is neither SQLite nor SQLCipher-encrypted (its bytes are not random)")
        case .plaintextSQLite:
            open(&result, passphrase: SecretBytes([]), filesFolder: filesFolder)
        case .encryptedOrNotDatabase(looksRandom: true):
            if let passphrase, !passphrase.isEmpty {
                open(&result, passphrase: passphrase, filesFolder: filesFolder)
            } else {
                result.classification = .encryptedUnknownPassphrase
                result.findings.append("the database looks encrypted; give its passphrase to see inside")
            }
        }
        result.findings += companionFindings(result)
        result.findings += leftoverFindings(target.path)
        return result
    }

    private func companion(_ path: String) -> CompanionFile? {
        POSIXFile.linkStatus(path).map { CompanionFile(path: path, size: Int64($0.st_size)) }
    }

    private func open(_ result: inout DatabaseInspection, passphrase: SecretBytes, filesFolder: String?) {
        let snapshot: ReadOnlySnapshot
        do {
            snapshot = try ReadOnlySnapshot(of: result.database.path, tempRoot: options.snapshotFolder)
        } catch {
            result.classification = .notADatabase
            result.findings.append("cannot make a private copy to read the WAL from: \(error)")
            return
        }
        defer { snapshot.remove() }
        let db: DatabaseConnection, format: CipherFormat
        do {
            (db, format) = try DatabaseOpener.open(snapshot.databasePath, passphrase: passphrase, mode: snapshot.mode)
        } catch let error as DatabaseError where error.isNotADatabase {
            if case .plaintextSQLite? = error.fileKind {
                result.classification = .notADatabase
                result.findings.append("the file starts like a SQLite database but cannot be read (truncated or damaged): \(error.message)")
            } else {
                result.classification = .encryptedWrongPassphrase
                result.findings.append(PassphraseWording.wrong(result.database.path))
            }
            return
        } catch let error as DatabaseError {
            result.classification = .notADatabase
            result.findings.append("the database cannot be read: \(error.message) (\(error.codeName))")
            return
        } catch {
            result.classification = .notADatabase
            result.findings.append("the database cannot be read: \(error)")
            return
        }
        result.classification = switch format {
        case .plaintext: .plaintextSQLite
        case .sqlcipher4: .sqlcipher4
        case .sqlcipher3: .sqlcipher3
        }
        let reader = DatabaseDetailsReader(db: db, format: format)
        // Each part is read on its own, so a damaged page costs only the part that needs it.
        do {
            result.details = try reader.details()
        } catch {
            result.findings.append("the schema cannot be read: \(error)")
        }
        if !snapshot.isCopy, let d = result.details {
            let pageSize = d.cipher?.cipherPageSize ?? d.pageSize
            if let wal = JournalModeProbe.isWAL(path: result.database.path, pageSize: pageSize, passphrase: passphrase,
                                                format: format, tempRoot: options.snapshotFolder) {
                result.details?.journalMode = wal ? "wal" : "delete"
            }
        }
        for table in result.details?.tables ?? [] {
            if let error = table.error { result.findings.append("table \(table.name) cannot be counted: \(error)") }
        }
        if result.database.role == .chat {
            do {
                result.chat = try reader.chatSummary(filesFolder: filesFolder)
            } catch {
                result.findings.append("the chat summary cannot be read: \(error)")
            }
        }
        if options.deep { result.integrity = reader.integrity() }
        result.findings += DatabaseFindings.of(result)
    }

    private func companionFindings(_ r: DatabaseInspection) -> [String] {
        var out: [String] = []
        if let wal = r.wal {
            if !wal.headerValid, wal.size > 0 {
                out.append("the -wal file (\(ByteCount.format(wal.size))) has no valid WAL header; SQLite will ignore it")
            } else if wal.uncheckpointedFrames > 0 {
                out.append("WAL holds \(wal.uncheckpointedFrames) un-checkpointed frame(s) (\(ByteCount.format(wal.size))): recent changes live only in the -wal file, so copy it together with the database")
            }
            if wal.ignoredFrames > 0 {
                out.append("WAL has \(wal.ignoredFrames) frame(s) after the last commit (an interrupted transaction); SQLite ignores them")
            }
        } else if r.shm != nil {
            out.append("a -shm file is present without a -wal file (left by an earlier session; harmless)")
        }
        if let journal = r.journal, journal.size > 0 {
            out.append("a rollback journal (\(ByteCount.format(journal.size))) is present: a write was interrupted and will be rolled back when the app next opens the database")
        }
        return out
    }

    private func leftoverFindings(_ path: String) -> [String] {
        var out: [String] = []
        if POSIXFile.linkStatus(DataDirectoryNames.exported(of: path)) != nil {
            out.append("'\(Path.basename(path)).exported' is left from an interrupted passphrase change; its recovery settles it")
        }
        if POSIXFile.linkStatus(DataDirectoryNames.backup(of: path)) != nil {
            out.append("'\(Path.basename(path)).bak' is a copy of this database under its previous passphrase (left by a passphrase change)")
        }
        return out
    }
}

/// `db inspect` for a whole data directory (or one `--db` file).
public struct DataDirectoryInspection: Sendable, Codable, Equatable {
    /// Nil for a single `--db` file.
    public var root: String?
    public var layout: DataDirectoryLayout?
    public var databases: [DatabaseInspection]
    /// Observations about the pair and the data directory.
    public var findings: [String]
}
