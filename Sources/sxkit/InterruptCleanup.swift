import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// A run stopped by SIGINT (Ctrl-C), SIGTERM or SIGHUP first removes the temp files and private
/// folders it holds (`LiveTemps`: a half-written archive, partial plaintext), then ends of the same
/// signal as before, so the shell sees the usual status (130, 143). The handler only writes the
/// signal's number to a pipe (async-signal-safe); a waiting thread does the removal.
/// `kill -9` cannot be caught: what it leaves is removed by the next run (see `TempOwnership`).
enum InterruptCleanup {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    nonisolated(unsafe) private static var pipeWrite: Int32 = -1

    static func install() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pipeWrite = ends[1]
        let readEnd = ends[0]
        let waiter = Thread {
            var number: Int32 = 0
            while read(readEnd, &number, MemoryLayout<Int32>.size) != MemoryLayout<Int32>.size {}
            LiveTemps.removeAll()
            signal(number, SIG_DFL)
            kill(getpid(), number)  // to the process: any thread that does not block it ends it
        }
        waiter.name = "sxkit.interrupt-cleanup"
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in signals {
            // A signal ignored on entry (a background job of a non-interactive shell) stays ignored.
            var current = sigaction()
            if sigaction(number, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == 1 /* SIG_IGN */ { continue }
            sigaddset(&unblock, number)
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var n = number
                _ = write(InterruptCleanup.pipeWrite, &n, MemoryLayout<Int32>.size)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // Blocked when inherited from a parent that blocks them (a test harness does): delivered
        // again, to this thread and every thread started after it.
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        waiter.start()
    }
}
