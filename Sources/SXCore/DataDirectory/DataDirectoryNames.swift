/// Every name sxkit or SQLite puts beside a file of a data directory, defined once. Writers, recovery,
/// the storage report and `clean` all ask here, so a name cannot drift between the code that leaves a
/// file and the code that recognises it.
public enum DataDirectoryNames {
    // SQLite's companions (https://sqlite.org/tempfiles.html): the rollback journal the SimpleX core
    // uses (it sets no journal_mode, simplexmq Agent/Store/SQLite.hs connectDB), and WAL's two files.
    public static let walSuffix = "-wal"
    public static let shmSuffix = "-shm"
    public static let rollbackJournalSuffix = "-journal"
    public static let companionSuffixes = [rollbackJournalSuffix, walSuffix, shmSuffix]

    public static func wal(of database: String) -> String { database + walSuffix }
    public static func shm(of database: String) -> String { database + shmSuffix }
    public static func rollbackJournal(of database: String) -> String { database + rollbackJournalSuffix }
    /// `-wal` and `-shm`: the companions that hold committed data or its index and move with a database.
    public static func walCompanions(of database: String) -> [String] { [wal(of: database), shm(of: database)] }
    /// All three companions SQLite may leave beside a file it wrote.
    public static func companions(of database: String) -> [String] { companionSuffixes.map { database + $0 } }

    /// The copy of a database taken before it is replaced: by a passphrase change, and by archive
    /// import (as the core does, simplex-chat `src/Simplex/Chat/Archive.hs` importArchive).
    public static let backupSuffix = ".bak"
    public static func backup(of database: String) -> String { database + backupSuffix }
    /// A passphrase change's new copy, verified before it replaces the database.
    public static let exportedSuffix = ".exported"
    public static func exported(of database: String) -> String { database + exportedSuffix }
    /// The copy taken before schema migrations (`.bak` belongs to the passphrase change).
    public static let migrationBackupSuffix = ".migration-backup"
    public static func migrationBackup(of database: String) -> String { database + migrationBackupSuffix }

    /// Journals: present means "an operation passed its point of no return and must be finished".
    public static let rekeyJournalSuffix = ".rekey-journal"
    public static func rekeyJournal(of chatDatabase: String) -> String { chatDatabase + rekeyJournalSuffix }
    public static let importJournalSuffix = ".import-journal"
    public static let filesJournalSuffix = ".files-journal"
    public static func filesJournal(of chatDatabase: String) -> String { chatDatabase + filesJournalSuffix }
    /// A batch's journal sits beside the manifest that holds its keys.
    public static let manifestJournalSuffix = ".journal"
    public static func manifestJournal(of manifest: String) -> String { manifest + manifestJournalSuffix }

    /// `AtomicFileWriter`'s temp files: `.sxkit-tmp-<name>.<random>` in the destination folder.
    public static let atomicTempPrefix = ".sxkit-tmp-"
    /// The desktop settings file staged by a passphrase change.
    public static let settingsStagedSuffix = ".sxkit-rekey"
    /// Archive import's staging folder in the data directory, and the marks of a folder swap.
    public static let importStagingName = ".sxkit-import-staging"
    public static let importingSuffix = ".sxkit-importing"
    public static let copiedSuffix = ".copied"

    /// Private folders under the system temp folder: `sxkit-<label>-XXXXXX` (mkdtemp).
    public static let privateTempPrefix = "sxkit-"
}
