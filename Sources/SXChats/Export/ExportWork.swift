import Dispatch
import Foundation
import Synchronization
import SXCore

/// One export's chats written on one or more threads: each thread has its own reader (its own
/// connection), takes the next batch of chats of the plan, and writes that batch's files alone. Marked
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
    /// the others (at their next batch, or within a few hundred items: `stopped`) and is thrown.
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
                        stopped.store(true, ordering: .relaxed)
                        return
                    }
                }
            }
        }
        return try collected.finish()
    }

    /// Set when a thread failed: the others stop early.
    let stopped = Atomic<Bool>(false)

    /// Writes the chats of one batch (`plan` entries) side by side: their cursors are merged in time
    /// order, so the table is read roughly in storage order, each page decrypted about once for the
    /// whole batch instead of once per chat that has an item on it (a chat's items are spread over the
    /// whole table). Each chat's files are published when its last item is written; on an error every
    /// file of the batch not yet published is aborted.
    func exportBatch(_ batch: [Int], plan: [ExportPlanEntry], reader: ChatHistoryReader) throws -> [(Int, ChatResult)] {
        var sinks: [ChatTranscriptSink?] = []
        var results: [(Int, ChatResult)] = []
        do {
            var pending = ChatItemMerge()
            for (slot, n) in batch.enumerated() {
                let entry = plan[n]
                sinks.append(try ChatTranscriptSink(user: entry.user, chat: entry.chat, paths: entry.paths, options: options, output: output, copier: copier))
                let cursor = try reader.cursor(ChatReference(userId: entry.user.userId, kind: entry.chat.kind, id: entry.chat.id),
                                               since: options.since, until: options.until)
                if try cursor.advance() {
                    pending.insert(cursor, slot: slot)
                } else {
                    results.append((n, try sinks[slot]!.finish()))
                    sinks[slot] = nil
                }
            }
            var sinceCheck = 0
            while let (cursor, slot) = pending.first {
                try sinks[slot]!.add(try cursor.message())
                progress?.itemDone()
                if try cursor.advance() {
                    pending.reorderFirst()
                } else {
                    pending.removeFirst()
                    results.append((batch[slot], try sinks[slot]!.finish()))
                    sinks[slot] = nil
                }
                sinceCheck += 1
                if sinceCheck == 256 {
                    sinceCheck = 0
                    if stopped.load(ordering: .relaxed) { throw ExportStopped() }
                }
            }
        } catch {
            sinks.forEach { $0?.abort() }
            throw error
        }
        return results
    }

    /// Splits the plan into batches for `workers` threads: the chats shared out by their item counts
    /// (largest first, each to the lightest thread), then cut into batches of at most `maxChats`
    /// chats (each open chat holds a file per format open). Batches come heaviest first.
    static func batches(_ items: [Int64], workers: Int, maxChats: Int) -> [[Int]] {
        let order = items.indices.sorted { items[$0] != items[$1] ? items[$0] > items[$1] : $0 < $1 }
        var bins = Array(repeating: (load: Int64(0), chats: [Int]()), count: max(1, workers))
        for n in order {
            let lightest = bins.indices.min { bins[$0].load != bins[$1].load ? bins[$0].load < bins[$1].load : $0 < $1 }!
            bins[lightest].load += items[n]
            bins[lightest].chats.append(n)
        }
        var out: [[Int]] = []
        for bin in bins where !bin.chats.isEmpty {
            stride(from: 0, to: bin.chats.count, by: maxChats).forEach { out.append(Array(bin.chats[$0..<min($0 + maxChats, bin.chats.count)])) }
        }
        return out.sorted { a, b in a.reduce(0) { $0 + items[$1] } > b.reduce(0) { $0 + items[$1] } }
    }
}

/// One chat of an export's plan: whose, which, and its output files (one per format).
struct ExportPlanEntry {
    var user: ChatUserSummary
    var chat: ChatSummary
    var paths: [String]
}

/// Thrown on a thread that stops because another failed; never reaches the caller.
struct ExportStopped: Error {}

/// Chats waiting to be read, ordered by their cursors' current items (a binary min-heap).
struct ChatItemMerge {
    private var heap: [(cursor: ChatItemCursor, slot: Int)] = []

    var first: (ChatItemCursor, Int)? { heap.first.map { ($0.cursor, $0.slot) } }

    mutating func insert(_ cursor: ChatItemCursor, slot: Int) {
        heap.append((cursor, slot))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].cursor.precedes(heap[parent].cursor) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// After the first cursor advanced: moves it down to its place.
    mutating func reorderFirst() { siftDown(0) }

    mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var least = i
            if l < heap.count && heap[l].cursor.precedes(heap[least].cursor) { least = l }
            if r < heap.count && heap[r].cursor.precedes(heap[least].cursor) { least = r }
            if least == i { return }
            heap.swapAt(i, least)
            i = least
        }
    }
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
