import SXChats
import SXCore
import SXDatabase

extension DemoSteps {
    /// The migrated profile's conversations, read without changing a byte (as `sxkit chats list`),
    /// then exported as HTML pages (as `sxkit chats export --format html`) into `chats-html/`.
    func runChatsStep(_ passphrase: SecretBytes) throws {
        step("30. The migrated profile's conversations, read-only (sxkit chats list, sxkit chats export --format html)")
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
        let export = ChatExport(database: migrated.chatDatabase, passphrase: passphrase,
                                options: .init(formats: [.html], clock: TranscriptClock(zone: .current), filesFolder: migrated.filesFolder))
        let report = try export.run(to: Path.join(root, "chats-html"), command: ["sxkit", "chats", "export", "--format", "html"], version: SXKit.version)
        let copied = report.chats.reduce(0) { $0 + $1.mediaCopied }
        say("exported \(report.chats.count) chat(s) as HTML pages, \(copied) attached file(s) beside them; the database's SHA-256 is \(report.databaseUnchanged ? "unchanged" : "CHANGED")")
        say("open in a browser: \(report.index ?? "")")
        say("try: sxkit chats list --data-dir \(DemoSteps.pasteable(migrated.root)) --passphrase-file \(DemoSteps.pasteable(Path.join(root, "demo-passphrase.txt")))")
    }
}
