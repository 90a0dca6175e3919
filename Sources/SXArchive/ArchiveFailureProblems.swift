/// The data of ArchiveFailure's grouped cases. The sentences are in ArchiveFailure.swift, so that
/// each case is worded in one place; these types only say what was found.
extension ArchiveFailure {
    /// Where the archive ends before its records do.
    public enum Truncation: Sendable, Equatable {
        case endsBeforeRecords(fileSize: Int64, recordsEnd: Int64)
        case shortRead(offset: Int64)
        /// It starts with a ZIP signature, but no end record is found.
        case endMissing
        case entryDataMissing(entry: String, bytes: Int64)
    }

    /// What is inconsistent in the ZIP structure.
    public enum Damage: Sendable, Equatable {
        case entryRunsIntoCentralDirectory(entry: String)
        case zip64LocatorMissing, zip64RecordMisplaced, zip64RecordMissing
        case entryOnAnotherDisk(entry: String)
        case localHeaderMissing(entry: String, offset: Int64)
        /// libarchive's reading ended after `read` entries; the central directory lists `listed`.
        case fewerEntriesRead(read: Int, listed: Int)
        case moreEntriesRead
    }

    /// Which expansion limit the archive, or one entry, would break.
    public enum ZipBombSign: Sendable, Equatable {
        case tooManyEntries(count: Int64, limit: Int64)
        /// The declared sizes add up past `limit` bytes, first at entry `reachedAt`.
        case expandsBeyondLimit(limit: Int64, reachedAt: String)
        case archiveRatio(archiveBytes: Int64, expandedBytes: Int64, ratio: Int64)
        case entryRatio(entry: String, compressed: Int64, uncompressed: Int64, ratio: Int64)
        /// Inflating gave more than the `declared` size.
        case inflatesBeyondDeclared(entry: String, declared: Int64)
    }

    /// How far libarchive got with an archive it could not read.
    public enum ReadStep: Sendable, Equatable {
        case allocate, open, nextEntry, data
    }

    public enum NotAZipReason: Sendable, Equatable {
        case notARegularFile, empty, noZipSignature
    }

    public enum OutputProblem: Sendable, Equatable {
        case isAFolder, exists, notARegularFile, folderMissing, appearedWhileWriting
    }

    /// What the ZIP reader refuses in the end record, the central directory or a local header,
    /// before any data is inflated. Entries are named by their central-directory name, or counted
    /// from 1 (`number`) when they have no readable name.
    public enum ZipStructureProblem: Sendable, Equatable {
        /// The end record declares no entries at all.
        case noEntries
        /// The end record says the archive is split over several disks.
        case spansDisks
        case centralDirectoryTooLarge(bytes: Int64, limit: Int64)
        /// The central directory does not end where the end record begins.
        case centralDirectoryMisplaced(declaredOffset: Int64)
        /// The central directory holds records beyond the `declared` count.
        case moreEntriesThanDeclared(declared: Int64)
        case centralRecordDamaged(number: Int)
        case nameNotUTF8(number: Int)
        /// Two entries share bytes (the overlapping-file zip bomb); in the order of their offsets.
        case entriesOverlap(String, String)
        /// The entry's local header would lie in or after the central directory.
        case entryPastData(entry: String)
        case zip64FieldDamaged(entry: String)
        /// The local header names the entry `localName` (decoded leniently, for showing).
        case localNameDiffers(entry: String, localName: String)
        /// The local header's compression method or encryption flags differ from the central record's.
        case localMethodDiffers(entry: String)
        /// The local header (or data descriptor) declares `local` for `field`, the central record `central`.
        case localFieldDiffers(entry: String, field: HeaderField, central: Int64, local: Int64)
    }

    /// A field both a local header and the central directory declare.
    public enum HeaderField: Sendable, Equatable {
        case crc, compressedSize, size
        /// The CRC in the data descriptor after the entry's data.
        case descriptorCRC
    }

    /// Why one entry makes the archive unacceptable as a chat archive.
    public enum EntryProblem: Sendable, Equatable {
        /// The same name (byte for byte) appears again.
        case appearsTwice
        /// The entry and the `earlier` one fold to the same name (case or Unicode normalisation).
        case collides(earlier: String)
        /// The name could escape the destination or is malformed (`reason`, from ArchiveEntryName).
        case unsafeName(reason: String)
        /// Directory mode without a name ending in '/'.
        case directoryWithoutSlash
        /// A Unix file type the archive check does not know (`mode`: the type bits).
        case unknownFileType(mode: UInt32)
        case encrypted
        case directoryWithData
        /// A compression method other than stored (0) and deflate (8).
        case unsupportedMethod(UInt16)
        /// Stored uncompressed, yet its compressed (`stored`) and uncompressed (`size`) sizes differ.
        case storedSizeMismatch(stored: Int64, size: Int64)
        /// libarchive read the entry's header with another name.
        case readsBackNamed(String)
        /// libarchive read the entry as another file type (`mode`: the type bits).
        case readsBackAsType(mode: UInt32)
        /// libarchive stopped inside the entry's data (`cause`: its sentence); nothing after it can be read.
        case dataUnreadable(cause: String)
    }

    /// What a free-space check was for.
    public enum SpacePurpose: Sendable, Equatable {
        /// Staging the whole archive beside the data directory.
        case importing
        /// Private copies of the archive's databases, to test the passphrase on.
        case testingPassphrase
        /// Private copies of the archive's databases, for verify's checks.
        case checkingDatabases
    }

    /// What libarchive could not allocate while writing.
    public enum WriterAllocation: Sendable, Equatable {
        case writer, entry
    }

    /// Why a database or file of the data directory cannot go into the archive.
    public enum ExportSourceProblem: Sendable, Equatable {
        /// A database the data directory must hold is not there.
        case noDatabase
        /// Another program holds a write lock on the database for longer than the busy timeout.
        case beingWritten
        /// The copy into the archive failed (`cause`: what the copier found).
        case uncopyable(cause: String)
    }
}
