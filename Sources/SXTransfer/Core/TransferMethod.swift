import Foundation
import SXCore

/// What a file is, for the auto-receive rule (FORMATS §1).
public enum FileKind: String, Sendable, Codable, CaseIterable {
    case image, voice, video, other

    /// By file name extension; anything unrecognised is `other`.
    public static func guess(fileName: String) -> FileKind {
        let ext = fileName.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "avif", "bmp", "tif", "tiff": return .image
        case "m4a", "ogg", "opus", "aac", "mp3", "wav": return .voice
        case "mp4", "mov", "webm", "mkv", "m4v", "avi": return .video
        default: return .other
        }
    }
}

/// How a file of a given size would be sent, whether the other side would take it without asking,
/// and which limits decided both.
public struct TransferDecision: Sendable, Equatable, Codable {
    public enum Method: String, Sendable, Codable {
        /// Base64 inside the message (≤ MAX_IMAGE_SIZE).
        case inline
        /// Chunked relay transfer (≤ MAX_FILE_SIZE_XFTP, or the hard limit when allowed above the soft one).
        case relay
        /// Too big.
        case refused
    }

    public let size: Int64
    public let kind: FileKind
    public let method: Method
    public let autoReceive: Bool
    /// The limit the size was compared with to pick the method, with its FORMATS name.
    public let methodLimitName: String
    public let methodLimit: Int64
    /// The auto-receive limit for this kind, nil for `other` (never auto-received).
    public let autoReceiveLimitName: String?
    public let autoReceiveLimit: Int64?

    /// - Parameter aboveSoftLimit: allow a relay transfer above the 1 GiB soft limit, up to the 5 GiB hard limit.
    public static func decide(size: Int64, kind: FileKind, aboveSoftLimit: Bool = false) -> TransferDecision {
        let method: Method
        let limitName: String
        let limit: Int64
        if size <= SimpleXLimits.maxImageSize {
            (method, limitName, limit) = (.inline, "MAX_IMAGE_SIZE", SimpleXLimits.maxImageSize)
        } else if size <= SimpleXLimits.maxFileSizeXFTP {
            (method, limitName, limit) = (.relay, "MAX_FILE_SIZE_XFTP", SimpleXLimits.maxFileSizeXFTP)
        } else if aboveSoftLimit && size <= SimpleXLimits.maxFileSizeXFTPHard {
            (method, limitName, limit) = (.relay, "MAX_FILE_SIZE_XFTP_HARD", SimpleXLimits.maxFileSizeXFTPHard)
        } else if aboveSoftLimit {
            (method, limitName, limit) = (.refused, "MAX_FILE_SIZE_XFTP_HARD", SimpleXLimits.maxFileSizeXFTPHard)
        } else {
            (method, limitName, limit) = (.refused, "MAX_FILE_SIZE_XFTP", SimpleXLimits.maxFileSizeXFTP)
        }
        let auto: (String, Int64)?
        switch kind {
        case .image: auto = ("MAX_IMAGE_SIZE_AUTO_RCV", SimpleXLimits.maxImageSizeAutoReceive)
        case .voice: auto = ("MAX_VOICE_SIZE_AUTO_RCV", SimpleXLimits.maxVoiceSizeAutoReceive)
        case .video: auto = ("MAX_VIDEO_SIZE_AUTO_RCV", SimpleXLimits.maxVideoSizeAutoReceive)
        case .other: auto = nil
        }
        return TransferDecision(size: size, kind: kind, method: method,
                                autoReceive: method != .refused && auto.map { size <= $0.1 } == true,
                                methodLimitName: limitName, methodLimit: limit,
                                autoReceiveLimitName: auto?.0, autoReceiveLimit: auto?.1)
    }

    /// The refusal as an error naming the limit; nil unless refused.
    public var refusal: TransferError? {
        method == .refused ? .tooLarge(size: size, limitName: methodLimitName, limit: methodLimit) : nil
    }
}

extension TransferDecision {
    /// The decision for a file on disk, by its size and name (a sparse file costs nothing to plan).
    public static func forFile(_ path: String, aboveSoftLimit: Bool = false) throws -> TransferDecision {
        let st = try POSIXFile.status(path)
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw UsageError("'\(path)' is not a regular file") }
        return decide(size: Int64(st.st_size), kind: FileKind.guess(fileName: Path.basename(path)), aboveSoftLimit: aboveSoftLimit)
    }
}
