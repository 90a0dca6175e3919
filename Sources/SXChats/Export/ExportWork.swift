import Dispatch
import Foundation
import Synchronization
import SXCore

/// One export's chats written on one or more threads: each thread has its own reader (its own
/// connection), takes the next chat of the plan, and writes that chat's files alone. Marked
/// `@unchecked Sendable` because the readers are not: reader `n` is only used by thread `n`.
final class ExportWork: @unchecked Sendable {
    /// What one chat's export produced.
    struct ChatResult {
        var exported: ChatExport.ExportedChat
        var written: [ChatExport.WrittenFile]
        var index: TranscriptHTMLIndex.Entry?
    }

    let options: ChatExport.Options
    let output: String
    let readers: [ChatHistoryReader]
    let copier: MediaCopy?
    let progress: ProgressTracker?

    init(export: ChatExport, output: String, readers: [ChatHistoryReader], copier: MediaCopy?, progress: ProgressTracker?) {
        options = export.options
        self.output = output
        self.readers = readers
        self.copier = copier
        self.progress = progress
    }

    /// Runs `body(thread, n)` for n in 0..<count on `readers.count` threads; the first error stops
    /// the others before their next chat and is thrown.
    func run<T>(_ count: Int, _ body: (Int, Int) throws -> T) throws -> [T] {
        let next = Atomic<Int>(0)
        let collected = Collected<T>()
        withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            DispatchQueue.concurrentPerform(iterations: readers.count) { thread in
                while true {
                    let n = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard n < count, !collected.failed else { return }
                    do {
                        collected.add(try box.value(thread, n))
                    } catch {
                        collected.fail(error)
                        return
                    }
                }
            }
        }
        return try collected.finish()
    }

    /// Writes one chat's files (one per format) item by item, copying its attached files into
    /// `media/`; on an error every file of the chat is aborted (nothing half-written is published).
    func exportChat(user: ChatUserSummary, chat: ChatSummary, paths: [String], reader: ChatHistoryReader) throws -> ChatResult {
        for path in paths { try Folders.create(Path.parent(path), permissions: 0o700) }
        let writers = try paths.map { try AtomicFileWriter(destination: $0, mode: 0o600) }
        var count: Int64 = 0
        var copied = 0, missing = 0, failed = 0
        var first: String?, last: String?
        var written: [ChatExport.WrittenFile] = []
        var pages = zip(options.formats, paths).map { format, path in
            format == .html ? TranscriptHTMLPage(chat: chat, user: user, clock: options.clock, pagePath: relative(path)) : nil
        }
        do {
            for (page, writer) in zip(pages, writers) {
                if let page { try writer.write(Array(page.begin().utf8)) }
            }
            try reader.forEach(ChatReference(userId: user.userId, kind: chat.kind, id: chat.id), since: options.since, until: options.until) { message in
                count += 1
                progress?.itemDone()
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
                for (i, writer) in writers.enumerated() {
                    let text: String
                    switch options.formats[i] {
                    case .txt: text = TranscriptLine.text(message, clock: options.clock, media: outcome) + "\n"
                    case .jsonl: text = try TranscriptLine.json(message, chat: chat, clock: options.clock, media: outcome) + "\n"
                    case .html: text = pages[i]?.item(message, media: outcome) ?? ""
                    }
                    try writer.write(Array(text.utf8))
                }
            }
            for (page, writer) in zip(pages, writers) {
                if let page { try writer.write(Array(page.end(items: count).utf8)) }
            }
            for writer in writers {
                try writer.finishWriting(flush: true)
                try writer.publish(flushFolder: true)
            }
        } catch {
            writers.forEach { $0.abort() }
            throw error
        }
        for path in paths { written.append(try ChatExport.describe(path, in: output)) }
        let index = zip(options.formats, paths).first { $0.0 == .html }.map {
            TranscriptHTMLIndex.Entry(user: user, chat: chat, page: relative($0.1), items: count, first: first, last: last)
        }
        let exported = ChatExport.ExportedChat(userId: user.userId, kind: chat.kind, id: chat.id, name: chat.displayName, messages: count,
                                               files: paths.map(relative), mediaCopied: copied, mediaMissing: missing, mediaFailed: failed)
        return ChatResult(exported: exported, written: written, index: index)
    }

    private func relative(_ path: String) -> String { String(path.dropFirst(output.count + 1)) }
}

/// Results gathered from several threads, and the first error.
private final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [T] = []
    private var error: (any Error)?

    var failed: Bool { lock.withLock { error != nil } }
    func add(_ value: T) { lock.withLock { results.append(value) } }
    func fail(_ error: any Error) { lock.withLock { if self.error == nil { self.error = error } } }

    func finish() throws -> [T] {
        try lock.withLock {
            if let error { throw error }
            return results
        }
    }
}

/// A value handed to other threads under the caller's promise that they use it safely.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
