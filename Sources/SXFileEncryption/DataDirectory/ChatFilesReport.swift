import SXCore

/// What happened to one file of the files folder (one path, however many rows name it).
public struct ChatFileOutcome: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The work was done: encrypted, decrypted in place, or a decrypted copy written.
        case done
        /// Nothing to do: already encrypted (encrypt) or not encrypted (decrypt).
        case alreadyDone
        /// Referenced by the DB but not in the files folder (not an error: the app tolerates it).
        case missing
        /// `file_path` is absolute or climbs out with `..`: never followed.
        case unsafePath
        /// The path (or a folder on the way) is a symlink: never followed.
        case symlink
        /// Not a regular file (a folder, a device, a socket).
        case notRegular
        /// The file changed while it was being worked on: left as it was, no key recorded.
        case changed
        /// Rows naming the same file disagree (some with a key, some without): left alone.
        case conflictingRows
        /// An error (read-only folder, bad tag, full disk…): left as it was.
        case failed

        /// Outcomes that make the command end with status 3.
        public var isFailure: Bool { self == .changed || self == .failed || self == .conflictingRows }
    }

    public var kind: Kind
    /// As stored in `files.file_path` (relative to the files folder when safe).
    public var path: String
    public var fileIds: [Int64]
    /// Where a decrypted copy went (decrypt -o).
    public var destination: String?
    /// Plaintext bytes worked on.
    public var bytes: Int64
    public var message: String?

    public init(kind: Kind, path: String, fileIds: [Int64], destination: String? = nil, bytes: Int64 = 0, message: String? = nil) {
        self.kind = kind
        self.path = path
        self.fileIds = fileIds
        self.destination = destination
        self.bytes = bytes
        self.message = message
    }
}

/// What a run over the files folder did: counts always; the outcomes themselves only when no
/// `ChatFilesWork.onOutcome` takes them as they happen (100,000 files must not mean 100,000
/// outcomes held in memory).
public struct ChatFilesReport: Sendable {
    public var operation: String
    public var filesFolder: String
    /// Every outcome, in order, when they are kept (see `ChatFilesWork.onOutcome`); else empty.
    public var outcomes: [ChatFileOutcome]
    /// Files of an interrupted earlier run settled before this one started.
    public var recovered: Int
    /// Journal records that could not be settled (their keys stay in the DB).
    public var recoveryNotes: [String]
    private var counts: [ChatFileOutcome.Kind: Int] = [:]
    /// Plaintext bytes of the files done.
    public private(set) var bytesDone: Int64 = 0

    public init(operation: String, filesFolder: String, outcomes: [ChatFileOutcome] = [], recovered: Int = 0, recoveryNotes: [String] = []) {
        self.operation = operation
        self.filesFolder = filesFolder
        self.outcomes = []
        self.recovered = recovered
        self.recoveryNotes = recoveryNotes
        for o in outcomes { add(o, keep: true) }
    }

    /// Counts an outcome, and keeps it when `keep`.
    public mutating func add(_ outcome: ChatFileOutcome, keep: Bool) {
        counts[outcome.kind, default: 0] += 1
        if outcome.kind == .done { bytesDone += outcome.bytes }
        if keep { outcomes.append(outcome) }
    }

    public func count(_ kind: ChatFileOutcome.Kind) -> Int { counts[kind] ?? 0 }
    public var failures: Int { counts.reduce(0) { $0 + ($1.key.isFailure ? $1.value : 0) } }
}
