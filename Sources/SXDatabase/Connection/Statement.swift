import CSQLCipher
import SXCore

/// One value read from (or bound to) a column.
public enum ColumnValue: Equatable, Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A compiled statement of one `DatabaseConnection`, which it keeps alive. Parameter and column
/// indexes follow SQLite: parameters count from 1, columns from 0. Finalized when released.
public final class Statement {
    public let connection: DatabaseConnection
    public let sql: String
    let handle: OpaquePointer

    init(connection: DatabaseConnection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// SQLite's "copy the bytes now" destructor.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    // MARK: Binding (parameters count from 1)

    public func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), index)
    }

    /// Convenience for `Int` (also what an integer literal picks).
    public func bind(_ value: Int, at index: Int32) throws {
        try bind(Int64(value), at: index)
    }

    public func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), index)
    }

    /// Binds UTF-8 text; embedded NUL characters are kept.
    public func bind(_ value: String, at index: Int32) throws {
        let utf8 = Array(value.utf8)
        let rc = utf8.withUnsafeBufferPointer { buffer in
            // A non-nil pointer even for "", so that the empty string stays text and not NULL.
            buffer.baseAddress.map {
                sqlite3_bind_text(handle, index, UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), Int32(buffer.count), Self.transient)
            } ?? sqlite3_bind_text(handle, index, "", 0, Self.transient)
        }
        try check(rc, index)
    }

    /// Binds a blob; an empty array binds a zero-length blob (not NULL).
    public func bind(_ value: [UInt8], at index: Int32) throws {
        let rc = value.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                sqlite3_bind_blob(handle, index, $0, Int32(bytes.count), Self.transient)
            } ?? sqlite3_bind_zeroblob(handle, index, 0)
        }
        try check(rc, index)
    }

    public func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), index)
    }

    /// Binds any value, `.null` included.
    public func bind(_ value: ColumnValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    public func bind(_ values: [ColumnValue]) throws {
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    /// The number of parameters the statement takes.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    private func check(_ rc: Int32, _ index: Int32) throws {
        if rc != SQLITE_OK { throw connection.error("bind parameter \(index) of", rc, sql: sql) }
    }

    // MARK: Running

    /// Runs to the next row: true when a row is ready to read, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error("run", rc, sql: sql)
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept (see `clearBindings`).
    public func reset() throws {
        let rc = sqlite3_reset(handle)
        if rc != SQLITE_OK { throw connection.error("reset", rc, sql: sql) }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns (count from 0)

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    public func int64(_ index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    public func double(_ index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// The column as UTF-8 text (invalid sequences repaired); nil for NULL.
    public func text(_ index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's bytes; empty for NULL or a zero-length blob.
    public func blob(_ index: Int) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column with its stored type.
    public func value(_ index: Int) -> ColumnValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index) ?? "")
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }
}
