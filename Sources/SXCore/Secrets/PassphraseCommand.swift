#if canImport(Glibc)
import Glibc
#endif

/// A passphrase printed by a command (a password manager, `pass`, `secret-tool`), as restic's
/// `--password-command`: `/bin/sh -c COMMAND` runs with this process's stdin, stderr and
/// environment, and its standard output, read over a pipe, is the passphrase. The secret is never
/// on an argument vector or in an environment the shell could show.
public enum PassphraseCommand {
    /// Runs `command` and returns what it printed, without one trailing newline. Fails when the
    /// command cannot be started, exits with a status other than 0, is killed, prints nothing, or
    /// prints more than `PassphraseResolver.maxFileSize` bytes. What it printed never appears in an error.
    public static func run(_ command: String, shell: String = "/bin/sh") throws -> SecretBytes {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw FileSystemError("create a pipe for", path: "the passphrase command") }
        // Swift's Glibc has no pipe2; other children spawned meanwhile must not inherit either end.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var readEnd = fds[0]
        defer { if readEnd >= 0 { close(readEnd) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto stdout clears close-on-exec there; both pipe ends stay closed in the child otherwise.
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(shell), strdup("-c"), strdup(command), nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, shell, &actions, nil, argv, environ)
        close(fds[1])
        guard spawned == 0 else { throw PassphraseError("cannot start the passphrase command with \(shell): \(String(cString: strerror(spawned)))") }

        // One buffer, allocated once, so no copy of the secret is left behind by a reallocation.
        let capacity = PassphraseResolver.maxFileSize + 1
        var buffer = [UInt8](repeating: 0, count: capacity)
        defer { Wipe.array(&buffer) }
        var used = 0
        var readError: Int32 = 0
        while used < capacity {
            let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress! + used, capacity - used) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { readError = errno; break }
            if n == 0 { break }
            used += n
        }
        // Closing the read end first lets a command that prints too much end (SIGPIPE) instead of blocking.
        close(readEnd)
        readEnd = -1

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw PassphraseError("cannot wait for the passphrase command: \(String(cString: strerror(errno)))") }
        }
        if used >= capacity {
            throw PassphraseError("the passphrase command printed more than \(PassphraseResolver.maxFileSize) bytes; that is not a passphrase")
        }
        let signal = status & 0x7F
        if signal != 0 {
            throw PassphraseError("the passphrase command was killed by signal \(signal); nothing was done")
        }
        let code = (status >> 8) & 0xFF
        if code != 0 {
            throw PassphraseError("the passphrase command exited with status \(code); nothing was done")
        }
        if readError != 0 {
            throw PassphraseError("cannot read the passphrase command's output: \(String(cString: strerror(readError)))")
        }
        let length = PassphraseResolver.lengthWithoutTrailingNewline(buffer[0..<used])
        guard length > 0 else {
            throw PassphraseError("the passphrase command printed no passphrase")
        }
        return SecretBytes(buffer[0..<length])
    }
}
