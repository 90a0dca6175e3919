import SXCore

/// One chat's output files while its items are written (one file per format, each an atomic temp
/// file until `finish` publishes it), its attached files copied into `media/`, and what it counted.
/// Lines are gathered in a small buffer per file and written in blocks, not one write per item.
final class ChatTranscriptSink {
    let user: ChatUserSummary
    let chat: ChatSummary
    private let options: ChatExport.Options
    private let output: String
    private let paths: [String]
    private let copier: MediaCopy?
    private var writers: [AtomicFileWriter] = []
    private var buffers: [[UInt8]]
    private var pages: [TranscriptHTMLPage?]
    private var count: Int64 = 0
    private var copied = 0, missing = 0, failed = 0
    private var first: String?, last: String?
    private var written: [ChatExport.WrittenFile] = []

    /// Bytes gathered per file before they are written.
    static let bufferSize = 32 * 1024

    init(user: ChatUserSummary, chat: ChatSummary, paths: [String], options: ChatExport.Options, output: String, copier: MediaCopy?) throws {
        self.user = user
        self.chat = chat
        self.options = options
        self.output = output
        self.paths = paths
        self.copier = copier
        buffers = paths.map { _ in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(Self.bufferSize)
            return buffer
        }
        pages = []
        pages = zip(options.formats, paths).map { format, path in
            format == .html ? TranscriptHTMLPage(chat: chat, user: user, clock: options.clock, pagePath: relative(path)) : nil
        }
        do {
            for path in paths {
                try Folders.create(Path.parent(path), permissions: 0o700)
                writers.append(try AtomicFileWriter(destination: path, mode: 0o600))
            }
            for i in pages.indices {
                if let page = pages[i] { try append(page.begin(), to: i) }
            }
        } catch {
            abort()
            throw error
        }
    }

    /// Writes one item to every format, after copying its attached file.
    func add(_ message: ChatMessage) throws {
        count += 1
        if first == nil { first = message.sentAt }
        last = message.sentAt
        let outcome = try message.file.flatMap { try copier?.copy($0) }
        switch outcome {
        case .copied(let path)?:
            copied += 1
            written.append(try ChatExport.describe(Path.join(output, path), in: output))
        case .missing?: missing += 1
        case .failed?: failed += 1
        case nil: break
        }
        for i in writers.indices {
            switch options.formats[i] {
            case .txt: try append(TranscriptLine.text(message, clock: options.clock, media: outcome) + "\n", to: i)
            case .jsonl: try append(try TranscriptLine.json(message, chat: chat, clock: options.clock, media: outcome) + "\n", to: i)
            case .html: if let text = pages[i]?.item(message, media: outcome) { try append(text, to: i) }
            }
        }
    }

    /// Ends the pages, publishes every file and says what the chat produced.
    func finish() throws -> ExportWork.ChatResult {
        for i in pages.indices {
            if let page = pages[i] { try append(page.end(items: count), to: i) }
        }
        for i in writers.indices {
            try flush(i)
            try writers[i].finishWriting(flush: true)
            try writers[i].publish(flushFolder: true)
        }
        writers = []
        for path in paths { written.append(try ChatExport.describe(path, in: output)) }
        let index = zip(options.formats, paths).first { $0.0 == .html }.map {
            TranscriptHTMLIndex.Entry(user: user, chat: chat, page: relative($0.1), items: count, first: first, last: last)
        }
        let exported = ChatExport.ExportedChat(userId: user.userId, kind: chat.kind, id: chat.id, name: chat.displayName, messages: count,
                                               files: paths.map(relative), mediaCopied: copied, mediaMissing: missing, mediaFailed: failed)
        return ExportWork.ChatResult(exported: exported, written: written, index: index)
    }

    /// Removes every temp file not yet published.
    func abort() {
        writers.forEach { $0.abort() }
        writers = []
    }

    private func append(_ text: String, to i: Int) throws {
        buffers[i].append(contentsOf: text.utf8)
        if buffers[i].count >= Self.bufferSize { try flush(i) }
    }

    private func flush(_ i: Int) throws {
        guard !buffers[i].isEmpty else { return }
        try writers[i].write(buffers[i])
        buffers[i].removeAll(keepingCapacity: true)
    }

    private func relative(_ path: String) -> String { String(path.dropFirst(output.count + 1)) }
}
