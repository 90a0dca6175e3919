import ArgumentParser
import Foundation
import SXChats
import SXCore
import SXDatabase
import SXTerminal

extension TranscriptFormat: ExpressibleByArgument {}

/// `sxkit chats export`: chats as transcripts, with a manifest for the chain of custody.
struct ChatsExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export chats as text, JSON Lines or HTML transcripts, with a manifest of hashes (read-only).",
        discussion: """
        Writes one file per chat and format under DIR/<user>/<kind>-<id>-<name>.<ext> (mode 0600, \
        folders 0700), the attached files into DIR/media/<file-id>-<name> (CryptoFiles decrypted with \
        their keys from the database, each tag checked; a missing or failing file is marked in the \
        transcript, not fatal) and DIR/manifest.json: the chat database's SHA-256 before and after (identical: \
        nothing was changed), sxkit's version, the command, and the SHA-256 of every file written. \
        Each item: its sender (me, the contact, the group member), its time (ISO 8601 in the local \
        zone, or UTC with --utc), its text, and what SimpleX records about it: quote, edited, deleted \
        (deleted, blocked, moderated and by whom), forwarded, disappearing, live, reactions, voice \
        and video duration, link preview, report reason, the attached file's name, size and status; \
        calls and group events are event lines; content this sxkit does not understand is kept and \
        marked. HTML pages are self-contained (no script, nothing loaded from the network): \
        pictures and stickers inline, voice and video as players of the copies in DIR/media/, day \
        separators, quotes; open DIR/index.html, which lists every exported chat. CHAT is a \
        display name or KIND:ID as `sxkit chats list` shows them (direct:5, group:2, notes:1); \
        without CHAT, every chat of every user (or of --user). Existing outputs \
        are refused before anything is written, unless --force. Read-only like `sxkit db inspect`.
        """
    )

    @Argument(help: ArgumentHelp("Chats to export: a display name or KIND:ID (default: every chat).", valueName: "chat"))
    var chats: [String] = []

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The folder to write into (created 0700).", valueName: "dir"),
            completion: .directory)
    var output: String

    @Option(name: .long, help: ArgumentHelp("Only this user profile's chats: its id or display name.", valueName: "user"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Only items sent at or after this time: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (local time, or UTC with --utc).", valueName: "time"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Only items sent before this time (same forms as --since).", valueName: "time"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("txt, jsonl or html; give it more than once for several (default: txt).", valueName: "format"))
    var format: [TranscriptFormat] = []

    @Flag(name: .long, help: "Write times in UTC instead of the local time zone.")
    var utc = false

    @Flag(name: .long, help: "Replace transcripts, media and a manifest an earlier export left in the folder.")
    var force = false

    @Flag(name: .customLong("no-media"), help: "Do not copy attached files into DIR/media/ (the transcripts still name them).")
    var noMedia = false

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        let zone = utc ? TimeZone(identifier: "UTC")! : TimeZone.current
        if let since, ExportTime.stored(since, zone: zone) == nil { throw ValidationError("--since must be YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]") }
        if let until, ExportTime.stored(until, zone: zone) == nil { throw ValidationError("--until must be YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]") }
    }

    func run() throws {
        let dir = try dataDirectory.resolveExisting()
        let key = try ChatPassphrase.required(for: dir, passphrase)
        let zone = utc ? TimeZone(identifier: "UTC")! : TimeZone.current
        var formats: [TranscriptFormat] = []
        for f in format where !formats.contains(f) { formats.append(f) }
        let exportOptions = ChatExport.Options(formats: formats, clock: TranscriptClock(zone: zone), user: user, chats: chats,
                                               since: since.flatMap { ExportTime.stored($0, zone: zone) },
                                               until: until.flatMap { ExportTime.stored($0, zone: zone) },
                                               outputPolicy: OutputPolicy(replaceExisting: force),
                                               filesFolder: noMedia ? nil : dir.filesFolder)
        let export = ChatExport(database: dir.chatDatabase, passphrase: key, options: exportOptions)
        let command = ["sxkit"] + Array(CommandLine.arguments.dropFirst())
        let tracker = ProgressTracker(label: "export")
        let ticker = options.json ? nil : options.startProgress(tracker)
        let result = Result { try export.run(to: Path.absolute(output), command: command, version: SXKit.version, progress: tracker) }
        ticker?.stop()
        let report = try result.get()
        if options.json {
            try JSONDocument.print(report)
        } else if !options.quiet {
            let out = ConsoleOutput.standardOutput
            for chat in report.chats {
                var media = chat.mediaCopied > 0 ? "; \(chat.mediaCopied) file(s) into media/" : ""
                if chat.mediaMissing > 0 { media += "; \(chat.mediaMissing) file(s) missing from the files folder" }
                if chat.mediaFailed > 0 { media += "; \(chat.mediaFailed) file(s) not copied (see the transcript)" }
                out.writeLine("\(chat.kind.rawValue):\(chat.id) \(chat.name): \(chat.messages) item(s) → \(chat.files.joined(separator: ", "))\(media)")
            }
            out.writeLine("exported \(report.chats.count) chat(s) into \(report.output); manifest \(report.manifest); "
                + "the database's SHA-256 is \(report.databaseUnchanged ? "unchanged" : "CHANGED") (\(report.databaseSHA256.prefix(16))…)")
            if let index = report.index { out.writeLine("open \(index) in a browser: it lists every exported chat's page") }
        }
        if !report.databaseUnchanged { throw CommandFailure(status: .failed) }
    }
}

/// `--since`/`--until` into the database's stored form (UTC, `YYYY-MM-DD HH:MM:SS`).
enum ExportTime {
    static func stored(_ text: String, zone: TimeZone) -> String? {
        let parse = DateFormatter()
        parse.locale = Locale(identifier: "en_US_POSIX")
        parse.timeZone = zone
        var date: Date?
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] where date == nil {
            parse.dateFormat = format
            date = parse.date(from: text)
        }
        guard let date else { return nil }
        let out = DateFormatter()
        out.locale = Locale(identifier: "en_US_POSIX")
        out.timeZone = TimeZone(identifier: "UTC")
        out.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return out.string(from: date)
    }
}
