import SXChats
import SXCore
import SXDatabase

extension DemoSteps {
    /// The migrated profile's conversations, read without changing a byte (as `sxkit chats list`).
    func runChatsStep(_ passphrase: SecretBytes) throws {
        step("30. The migrated profile's conversations, read-only (sxkit chats list)")
        let migrated = DataDirectory(root: Path.join(root, "migrated"), layout: .desktop)
        let users = try ReadAccess.read(migrated.chatDatabase, passphrase: passphrase) { db, _ in try ChatCatalog.read(db) }
        for user in users {
            let chats = user.chats.filter { $0.messages > 0 }
            let messages = user.chats.reduce(0) { $0 + $1.messages }
            let files = user.chats.reduce(0) { $0 + $1.files }
            say("user \(user.displayName): \(user.chats.count) chat(s), \(chats.count) with messages, \(messages) message(s), \(files) file(s)")
            if let latest = chats.first {
                say("  latest: \(latest.kind.rawValue) \(latest.displayName), \(latest.messages) message(s) up to \(latest.lastMessageAt ?? "") UTC")
            }
        }
        say("try: sxkit chats list --data-dir \(DemoSteps.pasteable(migrated.root)) --passphrase-file \(DemoSteps.pasteable(Path.join(root, "demo-passphrase.txt")))")
    }
}
