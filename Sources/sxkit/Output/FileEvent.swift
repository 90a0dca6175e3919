import SXFileEncryption

/// One file's line under --json, for `files encrypt|decrypt|verify` given paths and given a data
/// directory's files folder alike: what was read (`path`), what was written (`output`), its `status`
/// and `bytes`, and why in one of three keys by how the file ended: `error` (failed), `reason` (left
/// alone: skipped, already done, missing…) or `note` (done, with something to know). `fileIds` (the
/// chat database's rows) only for a data directory's files.
struct FileEvent: Encodable {
    let type = "file"
    var path: String
    var output: String?
    var fileIds: [Int64]?
    var status: String
    var bytes: Int64
    var error: String?
    var reason: String?
    var note: String?

    init(path: String, output: String?, fileIds: [Int64]? = nil, status: String, bytes: Int64,
         ended: BatchItemResult.Status, message: String?) {
        self.path = path
        self.output = output
        self.fileIds = fileIds
        self.status = status
        self.bytes = bytes
        switch ended {
        case .done: note = message
        case .skipped: reason = message
        case .failed: error = message
        }
    }
}
