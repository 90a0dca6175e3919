import ArgumentParser
import Foundation
import SXChats
import SXCore
import SXDatabase
import SXTerminal

/// `sxkit chats list`: every user profile and its chats, with message and file counts.
struct ChatsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every user profile and its contacts, groups and private notes, with message and file counts.",
        discussion: """
        For each user profile (hidden ones included and marked), each chat: its kind (direct, group, \
        notes), id, display name, the number of chat items (group events included), the first and last \
        item's time (UTC), and how many files its items carry and their recorded size; most recent \
        first. A deleted contact is listed, marked, while its messages remain. Needs the chat \
        database's passphrase when it is encrypted (--passphrase-file, SXKIT_PASSPHRASE or a prompt). \
        Read-only like `sxkit db inspect`: not a byte nor a timestamp of the profile changes; a \
        database with a WAL is read from a private copy.
        """
    )

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let dir = try dataDirectory.resolveExisting()
        let key = try ChatPassphrase.required(for: dir, passphrase)
        let users = try ReadAccess.read(dir.chatDatabase, passphrase: key) { db, _ in try ChatCatalog.read(db) }
        if options.json {
            try JSONDocument.print(Document(database: dir.chatDatabase, users: users.map(Self.jsonTimes)))
        } else if !options.quiet {
            ConsoleOutput.standardOutput.write(Self.render(users))
        }
    }

    struct Document: Encodable {
        var database: String
        var users: [ChatUserSummary]
    }

    /// Times as ISO 8601 UTC in the JSON document.
    static func jsonTimes(_ user: ChatUserSummary) -> ChatUserSummary {
        var user = user
        for i in user.chats.indices {
            user.chats[i].firstMessageAt = user.chats[i].firstMessageAt.map { JSONTime.iso8601(sqlite: $0) }
            user.chats[i].lastMessageAt = user.chats[i].lastMessageAt.map { JSONTime.iso8601(sqlite: $0) }
        }
        return user
    }

    static func render(_ users: [ChatUserSummary]) -> String {
        var out = ""
        for user in users {
            var marks: [String] = []
            if user.active { marks.append("active") }
            if user.hidden { marks.append("hidden") }
            let name = user.fullName.map { "\(user.displayName) (\($0))" } ?? user.displayName
            out += "user \(user.userId): \(name)" + (marks.isEmpty ? "" : " [\(marks.joined(separator: ", "))]")
                + " — \(user.chats.count) chat(s), \(user.chats.reduce(0) { $0 + $1.messages }) message(s)\n"
            for chat in user.chats {
                var name = chat.displayName
                if let profile = chat.profileName { name += " (\(profile))" }
                if chat.deleted { name += " [deleted contact]" }
                let span = chat.firstMessageAt.map { first in ", \(Self.minute(first)) → \(Self.minute(chat.lastMessageAt ?? first)) UTC" } ?? ""
                let files = chat.files > 0 ? ", \(chat.files) file(s), \(ByteCount.format(chat.fileBytes))" : ""
                out += "  \(chat.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(String(chat.id).leftPadded(to: 5))  \(name)\n"
                out += "                \(chat.messages) message(s)\(span)\(files)\n"
            }
        }
        return out.isEmpty ? "no user profiles\n" : out
    }

    /// `YYYY-MM-DD HH:MM` of a stored time.
    static func minute(_ stored: String) -> String { String(stored.prefix(16)) }
}
