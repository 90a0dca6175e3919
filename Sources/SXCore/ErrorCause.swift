import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain words for errors that come from below sxkit (Foundation, swift-nio, Codable), whose own
/// descriptions are debug dumps (`Error Domain=NSCocoaErrorDomain Code=516 … UserInfo=…`,
/// `bind(descriptor:ptr:bytes:) failed … (errno: 98)`, `DecodingError.typeMismatch(…)`). Never the
/// error's `description`: only the system's errno text and what the error says about paths.
public enum ErrorCause {
    /// The errno an error carries: `FileSystemError`, a POSIX error inside an NSError, or a
    /// stored `errnoCode`/`errno` field (swift-nio's `IOError`), found without importing its module.
    public static func errno(of error: any Error) -> Int32? {
        if let error = error as? FileSystemError { return error.code }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        if ns.domain == NSCocoaErrorDomain, let code = cocoaErrno[ns.code] { return code }
        return storedErrno(in: error, depth: 0)
    }

    /// A field or enum payload named `errnoCode` or `errno` (swift-nio's `IOError` keeps
    /// `.errno(CInt)` in a private field), a few levels down at most.
    private static func storedErrno(in value: Any, depth: Int) -> Int32? {
        guard depth < 3 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let label = child.label, label == "errnoCode" || label == "errno", let code = child.value as? Int32, code > 0 { return code }
            if let code = storedErrno(in: child.value, depth: depth + 1) { return code }
        }
        return nil
    }

    /// Foundation's file error codes with the errno they stand for (corelibs-foundation loses the
    /// errno for these).
    private static let cocoaErrno: [Int: Int32] = [
        CocoaError.Code.fileNoSuchFile.rawValue: ENOENT,
        CocoaError.Code.fileReadNoSuchFile.rawValue: ENOENT,
        CocoaError.Code.fileWriteFileExists.rawValue: EEXIST,
        CocoaError.Code.fileReadNoPermission.rawValue: EACCES,
        CocoaError.Code.fileWriteNoPermission.rawValue: EACCES,
        CocoaError.Code.fileWriteOutOfSpace.rawValue: ENOSPC,
        CocoaError.Code.fileWriteVolumeReadOnly.rawValue: EROFS,
    ]

    /// The path a Foundation error names, if any.
    public static func path(of error: any Error) -> String? {
        let ns = error as NSError
        return ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
    }

    /// A short cause, never a dump: the errno's text when there is one, else what kind of failure it was.
    public static func text(of error: any Error) -> String {
        if let sx = error as? any SXError { return sx.description }
        if let code = errno(of: error) { return String(cString: strerror(code)) }
        // sxkit's own problem types (typed throws) read as sentences already.
        let module = String(reflecting: type(of: error)).prefix { $0 != "." }
        if module.hasPrefix("SX") && !module.hasSuffix("Tests") { return String(describing: error) }
        if let decoding = error as? DecodingError { return describe(decoding) }
        if error is EncodingError { return "a value could not be written as JSON" }
        return "an unexpected \(String(describing: type(of: error))) error"
    }

    /// What a JSON document lacked, in words: "the field 'a.b' is missing", "'a' is not a number"…
    public static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            let names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "the document" : "'" + names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "the field '\(key.stringValue)' is missing" + (context.codingPath.isEmpty ? "" : " in \(at(context.codingPath))")
        case .typeMismatch(let type, let context):
            return "\(at(context.codingPath)) is not \(kind(type))"
        case .valueNotFound(let type, let context):
            return "\(at(context.codingPath)) is null where \(kind(type)) is expected"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not valid JSON" : "\(at(context.codingPath)) holds an invalid value"
        @unknown default:
            return "it is not the JSON expected"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array") || name.hasPrefix("[") { return "a list" }
        if name.hasPrefix("Dictionary") { return "an object" }
        if name == "String" { return "text" }
        if ["Int", "Int32", "Int64", "UInt64", "Double", "UInt8"].contains(name) { return "a number" }
        if name == "Bool" { return "true or false" }
        return "an object"
    }
}
