import Foundation
import Synchronization

/// Small requests to relays (acknowledgements, deletions) sent side by side: HTTP/2 carries them
/// together, and one after another they would cost a round trip each (about a second over Tor).
enum SideBySide {
    /// Runs `body` for every item, at most `atOnce` at a time, each exactly once.
    static func forEach<Item: Sendable>(_ items: [Item], atOnce: Int, _ body: @escaping @Sendable (Item) async -> Void) async {
        var pending = items.makeIterator()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, atOnce) {
                guard let item = pending.next() else { break }
                group.addTask { await body(item) }
            }
            for await _ in group {
                if let item = pending.next() { group.addTask { await body(item) } }
            }
        }
    }
}

/// The relays a run found unreachable, with the error that said so, shared by its parallel tasks:
/// later requests go elsewhere first (a send) or are not made (acknowledgements, deletions).
final class UnreachableRelays: Sendable {
    private let errors = Mutex<[RelayAddress: RelayError]>([:])
    func error(for address: RelayAddress) -> RelayError? { errors.withLock { $0[address] } }
    func contains(_ address: RelayAddress) -> Bool { error(for: address) != nil }
    func record(_ error: RelayError, for address: RelayAddress) { errors.withLock { $0[address] = error } }
    func forget(_ address: RelayAddress) { errors.withLock { _ = $0.removeValue(forKey: address) } }
}
