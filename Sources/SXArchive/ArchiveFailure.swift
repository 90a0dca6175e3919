import SXCore
import SXDatabase

/// A fatal archive problem: nothing was changed (import) or no archive was left behind (export).
/// Each case carries the path or entry and the cause; the sentence is built once, in `description`,
/// and what the user can do about it once, in `remedy`. There is no free-text case: a new refusal
/// gets a case (or a case of one of the groups in ArchiveFailureProblems.swift).
public enum ArchiveFailure: SXError, Equatable {
    /// The file at `path` is no ZIP archive at all.
    case notAZip(path: String, reason: NotAZipReason)
    /// The archive ends before its records do.
    case truncated(Truncation)
    /// The ZIP structure is inconsistent.
    case damaged(Damage)
    /// The end record, the central directory or a local header is refused before any data is read.
    case structure(ZipStructureProblem)
    /// An entry is not a regular file (`kind`: "symbolic link", "device file", "FIFO", "socket", "hard link").
    case entryNotRegular(entry: String, kind: String)
    /// One entry breaks the chat archive's layout rules, or reads back other than its headers declare.
    case entryRefused(entry: String, EntryProblem)
    /// The archive lacks `missing` (a database's entry name), so it is no chat archive.
    case notAChatArchive(missing: String)
    /// The archive (or one entry) would expand beyond a limit.
    case zipBomb(ZipBombSign)
    /// The file system holding `folder` has too little free space for `purpose` (all in bytes).
    case notEnoughSpace(purpose: SpacePurpose, folder: String, needed: Int64, available: Int64, spare: Int64)
    /// libarchive could not open, or go on reading, the archive at `path`.
    case unreadable(path: String, step: ReadStep, cause: String)
    /// libarchive could not write the archive at `path` (`operation`: "write the header of", …).
    case unwritable(path: String, operation: String, cause: String)
    /// libarchive could not allocate what writing the archive at `path` needs.
    case writerOutOfMemory(path: String, allocating: WriterAllocation)
    /// The writer was asked for a compression method it does not write (only stored and deflate).
    case methodNotWritable(method: UInt16, path: String)
    /// The export's output cannot be written as asked.
    case output(path: String, problem: OutputProblem)
    /// A database or file of the data directory being exported cannot go into the archive.
    case exportSource(path: String, problem: ExportSourceProblem)
    /// A database is open in another program; `settling`: while finishing an interrupted import.
    case databaseInUse(path: String, settling: Bool)
    /// `path` (a current database's backup name, or its companion) is where the import keeps the current database.
    case backupInTheWay(path: String)
    /// The archive's database entry `entry` came out damaged (`problem`: what the reader found).
    case archivedDatabaseDamaged(entry: String, problem: String)
    /// The archive's `role` database (entry `entry`) does not open with the passphrase given.
    case archivedDatabaseUnusable(role: DatabaseRole, entry: String, outcome: KeyTestOutcome, cause: String)
    /// The file system filled up while the archive was staged (`cause`: the failed call).
    case noSpaceToImport(cause: String)
    /// The swap into place stopped part-way (`cause`); the import's recovery finishes it.
    case importInterrupted(cause: String)
    /// Finishing an interrupted import would overwrite `existing` (one path, or a database and its backup).
    case importBlocked(existing: [String], appMayHaveRun: Bool)
    /// The import journal cannot be read, or names a phase this build does not know.
    case journalUnreadable(path: String, cause: String)
    case journalPhaseUnknown(path: String, phase: String)
    /// The destination already holds a profile (`database` is its chat database's name) and
    /// replacing it was not asked for.
    case profileExists(root: String, database: String)

    /// The sentence, as tests and the reader's wrapping quote it.
    public var message: String { description }

    public var description: String {
        switch self {
        case .notAZip(let path, let reason):
            switch reason {
            case .notARegularFile: return "'\(path)' is not a regular file"
            case .empty: return "'\(path)' is empty (0 bytes), not a ZIP archive"
            case .noZipSignature: return "'\(path)' is not a ZIP archive"
            }
        case .truncated(let truncation):
            return "the archive is truncated: " + Self.sentence(truncation)
        case .damaged(let damage):
            return Self.sentence(damage) + ": the archive is damaged"
        case .structure(let problem):
            return Self.sentence(problem)
        case .entryNotRegular(let entry, let kind):
            return "entry '\(entry)' is a \(kind); a chat archive holds only regular files"
        case .entryRefused(let entry, let problem):
            return Self.sentence(entry, problem)
        case .notAChatArchive(let missing):
            return "the archive has no \(missing): it is not a chat archive (a chat archive holds both databases)"
        case .zipBomb(let sign):
            return Self.sentence(sign) + "; refusing a likely zip bomb"
        case .notEnoughSpace(let purpose, let folder, let needed, let available, let spare):
            return "\(Self.noun(purpose)) needs \(ByteCount.format(needed)) on the file system of '\(folder)', which has "
                + "\(ByteCount.format(available)) free (keeping \(ByteCount.format(spare)) spare); "
                + "free some space and run the command again; nothing was changed"
        case .unreadable(let path, let step, let cause):
            switch step {
            case .allocate: return "libarchive could not allocate a reader"
            case .open: return "cannot read '\(path)' as a ZIP archive: \(cause)"
            case .nextEntry: return "cannot read the next entry of '\(path)': \(cause)"
            case .data: return "cannot read '\(path)': \(cause)"
            }
        case .unwritable(let path, let operation, let cause):
            return "cannot \(operation) '\(path)': \(cause)"
        case .writerOutOfMemory(let path, let allocating):
            switch allocating {
            case .writer: return "cannot start a ZIP writer: out of memory"
            case .entry: return "cannot describe an entry of '\(path)': out of memory"
            }
        case .methodNotWritable(let method, let path):
            return "cannot write ZIP method \(method) into '\(path)'"
        case .output(let path, let problem):
            switch problem {
            case .isAFolder: return "'\(path)' is a folder; give the archive's file name"
            case .exists: return "'\(path)' already exists; choose another name"
            case .notARegularFile: return "'\(path)' exists and is not a regular file; it will not be replaced"
            case .folderMissing: return "the folder '\(path)' does not exist; create it first"
            case .appearedWhileWriting: return "'\(path)' appeared while the archive was being written; it was left alone and nothing was written"
            }
        case .exportSource(let path, let problem):
            switch problem {
            case .noDatabase:
                return "there is no database at '\(path)' (the data directory must hold \(ChatArchiveEntry.chatDatabaseName) and \(ChatArchiveEntry.agentDatabaseName))"
            case .beingWritten:
                return "another program is writing to '\(path)'; close SimpleX Chat (and any other program using the database) and retry"
            case .uncopyable(let cause):
                return "cannot archive '\(path)': \(cause)"
            }
        case .databaseInUse(let path, let settling):
            return settling
                ? "'\(path)' is open in another program (SimpleX Chat?); close it, then settle the import again"
                : "'\(path)' is open in another program (SimpleX Chat?); close it and run the import again; nothing was changed"
        case .backupInTheWay(let path):
            return "'\(path)' is in the way: the import keeps the current database there; move it away or delete it, then run the import again; nothing was changed"
        case .archivedDatabaseDamaged(let entry, let problem):
            return "the archive's \(entry) is damaged: \(problem); nothing was changed"
        case .archivedDatabaseUnusable(let role, let entry, _, let cause):
            return "the archive's \(role.rawValue) database (\(entry)) cannot be used: \(cause) (an archive's databases keep the passphrase they had when exported); nothing was changed"
        case .noSpaceToImport(let cause):
            return "no space left to import the archive (\(cause)); the staging folder was deleted and nothing was changed"
        case .importInterrupted(let cause):
            return "the import stopped while putting the archive's data in place: \(cause); its recovery finishes it"
        case .importBlocked(let existing, let appMayHaveRun):
            let found = existing.count == 1
                ? "'\(existing[0])' exists already; move it away"
                : "both " + existing.map { "'\($0)'" }.joined(separator: " and ") + " exist" + (appMayHaveRun ? " (was SimpleX Chat started in between?)" : "") + "; move one away"
            return "cannot finish the import: \(found), then settle the import again"
        case .journalUnreadable(let path, let cause):
            return "the import journal '\(path)' cannot be read (\(cause)); the data directory needs a look by hand"
        case .journalPhaseUnknown(let path, let phase):
            return "the import journal '\(path)' names an unknown phase '\(phase)'"
        case .profileExists(let root, let database):
            return "'\(root)' already holds a profile ('\(database)'); nothing was changed"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .output(_, .exists): .replaceExisting
        case .exportSource(_, .noDatabase): .chooseDataDirectory
        case .databaseInUse(_, true), .importBlocked, .importInterrupted: .recover(.archiveImport)
        case .profileExists: .replaceProfile
        default: nil
        }
    }

    /// The sentence of a refused ZIP structure.
    private static func sentence(_ problem: ZipStructureProblem) -> String {
        switch problem {
        case .noEntries:
            return "the archive is empty: it has no entries, not even the chat database"
        case .spansDisks:
            return "the archive spans several disks, which a chat archive never does"
        case .centralDirectoryTooLarge(let bytes, let limit):
            return "the archive's central directory is \(bytes) bytes, more than the limit of \(limit)"
        case .centralDirectoryMisplaced(let declaredOffset):
            return "the archive's central directory is not where its end record says (byte \(declaredOffset)): the archive is damaged, truncated or has data prepended"
        case .moreEntriesThanDeclared(let declared):
            return "the archive's central directory holds more than the \(declared) entries its end record declares"
        case .centralRecordDamaged(let number):
            return "the archive's central directory is damaged at entry #\(number)"
        case .nameNotUTF8(let number):
            return "entry #\(number) has a name that is not valid UTF-8; chat archives name every entry in UTF-8"
        case .entriesOverlap(let first, let second):
            return "entries '\(first)' and '\(second)' overlap inside the archive (a zip-bomb trick); refusing it"
        case .entryPastData(let entry):
            return "entry '\(entry)' points past the end of the archive's data: the archive is damaged or truncated"
        case .zip64FieldDamaged(let entry):
            return "entry '\(entry)' has a damaged ZIP64 field"
        case .localNameDiffers(let entry, let localName):
            return "entry '\(entry)' is named '\(localName)' in its local header: the central directory and the local headers disagree"
        case .localMethodDiffers(let entry):
            return "entry '\(entry)' has a different compression method or encryption flag in its local header than in the central directory"
        case .localFieldDiffers(let entry, let field, let central, let local):
            let what = switch field {
            case .crc: "CRC"
            case .compressedSize: "compressed size"
            case .size: "size"
            case .descriptorCRC: "CRC (in its data descriptor)"
            }
            return "entry '\(entry)' declares \(what) \(local) in its local header but \(central) in the central directory: the archive is damaged or forged"
        }
    }

    /// The sentence of a refused entry.
    private static func sentence(_ entry: String, _ problem: EntryProblem) -> String {
        switch problem {
        case .appearsTwice:
            return "entry '\(entry)' appears twice in the archive; refusing it, since which copy wins would depend on the tool"
        case .collides(let earlier):
            return "entries '\(earlier)' and '\(entry)' would be the same file on a case-insensitive or Unicode-normalising file system; refusing the archive"
        case .unsafeName(let reason):
            return "entry '\(ChatArchiveCheck.printable(entry))' is refused: \(reason)"
        case .directoryWithoutSlash:
            return "entry '\(entry)' claims to be a directory but its name does not end in '/'; the archive is forged"
        case .unknownFileType(let mode):
            return "entry '\(entry)' has an unknown file type (mode \(String(mode, radix: 8)))"
        case .encrypted:
            return "entry '\(entry)' is encrypted; chat archives are not, and sxkit does not import encrypted entries"
        case .directoryWithData:
            return "directory entry '\(entry)' carries data"
        case .unsupportedMethod(let method):
            return "entry '\(entry)' is compressed with method \(method); chat archives use deflate (8) or none (0)"
        case .storedSizeMismatch(let stored, let size):
            return "entry '\(entry)' is stored uncompressed, yet declares \(stored) bytes stored for \(size): the archive is damaged or forged"
        case .readsBackNamed(let name):
            return "entry '\(entry)' reads back as '\(name)': the archive is damaged or forged"
        case .readsBackAsType(let mode):
            return "entry '\(entry)' reads back as a file of another type (mode \(String(mode, radix: 8))); a chat archive holds only regular files"
        case .dataUnreadable(let cause):
            return "entry '\(entry)' is damaged (\(cause)); the archive cannot be read past it"
        }
    }

    /// What needed the space, as the subject of a sentence.
    private static func noun(_ purpose: SpacePurpose) -> String {
        switch purpose {
        case .importing: "importing the archive"
        case .testingPassphrase: "testing the passphrase of the archive's databases"
        case .checkingDatabases: "checking the archive's databases"
        }
    }
}

extension ArchiveFailure {
    private static func sentence(_ truncation: Truncation) -> String {
        switch truncation {
        case .endsBeforeRecords(let fileSize, let recordsEnd): "it ends at byte \(fileSize), but its records reach byte \(recordsEnd)"
        case .shortRead(let offset): "a read at byte \(offset) came back short"
        case .endMissing: "it starts like a ZIP, but its end (the central directory) is missing"
        case .entryDataMissing(let entry, let bytes): "entry '\(entry)' needs \(bytes) bytes of data, and the file ends before them"
        }
    }

    private static func sentence(_ damage: Damage) -> String {
        switch damage {
        case .entryRunsIntoCentralDirectory(let entry): "entry '\(entry)' runs into the central directory"
        case .zip64LocatorMissing: "the archive's ZIP64 end locator is missing"
        case .zip64RecordMisplaced: "the archive's ZIP64 end record is out of place"
        case .zip64RecordMissing: "the archive's ZIP64 end record is missing"
        case .entryOnAnotherDisk(let entry): "entry '\(entry)' says it starts on another disk"
        case .localHeaderMissing(let entry, let offset): "entry '\(entry)' has no local header where the central directory says (byte \(offset))"
        case .fewerEntriesRead(let read, let listed): "libarchive found \(read) entries in the archive, the central directory lists \(listed)"
        case .moreEntriesRead: "libarchive found more entries in the archive than its central directory lists"
        }
    }

    private static func sentence(_ sign: ZipBombSign) -> String {
        switch sign {
        case .tooManyEntries(let count, let limit): "the archive has \(count) entries, more than the limit of \(limit)"
        case .expandsBeyondLimit(let limit, let reachedAt):
            "the archive would expand to more than \(ByteCount.format(limit)) (reached at entry '\(reachedAt)')"
        case .archiveRatio(let archiveBytes, let expandedBytes, let ratio):
            "the archive (\(ByteCount.format(archiveBytes))) would expand to \(ByteCount.format(expandedBytes)), more than \(ratio):1"
        case .entryRatio(let entry, let compressed, let uncompressed, let ratio):
            "entry '\(entry)' would expand from \(ByteCount.format(compressed)) to \(ByteCount.format(uncompressed)), more than \(ratio):1"
        case .inflatesBeyondDeclared(let entry, let declared): "entry '\(entry)' inflates to more than the \(declared) bytes its headers declare"
        }
    }
}
