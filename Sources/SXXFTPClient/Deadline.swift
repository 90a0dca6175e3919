/// Runs `work`, or throws `onTimeout` when it takes longer than `seconds` (the work is cancelled).
func withDeadline<T: Sendable>(seconds: Int, onTimeout: @escaping @Sendable () -> any Error,
                               _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw onTimeout()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
