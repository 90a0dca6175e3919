import Foundation

/// What a chat item holds, read from `chat_items.item_content` as the core stores it: one key, the
/// content's tag, around an object of its fields (`DBJSONCIContent`, simplex-chat
/// `src/Simplex/Chat/Messages/CIContent.hs`, derived with `singleFieldJSON $ dropPrefix "DBJCI"`;
/// simplexmq `src/Simplex/Messaging/Parsers.hs` 141-150: nullary constructors as `{}`, absent
/// optional fields left out). Not the apps' API form `{"type":…}`.
///
/// Nothing is dropped: a tag sxkit does not know is kept with its raw JSON, and text that is not
/// such an object is kept as it is, marked invalid, as the core itself keeps it (`CIInvalidJSON`,
/// simplex-chat `Store/Messages.hs` `toDirectChatItem`: `fromRight invalid $ dbParseACIContent …`).
public enum ChatItemContent: Sendable, Equatable {
    /// `sndMsgContent` / `rcvMsgContent`: a message.
    case message(ChatItemDirection, MessageContent)
    /// `sndDeleted` / `rcvDeleted`: deleted before `item_deleted` existed (core before v4.3); `mode`
    /// is `broadcast`, `internal` or `internalMark`.
    case deleted(ChatItemDirection, mode: String?)
    /// `sndModerated` / `rcvModerated`: removed by a group moderator; the original is gone.
    case moderated(ChatItemDirection)
    /// `rcvBlocked`: from a member the user blocked.
    case blocked
    /// `sndCall` / `rcvCall`: `status` is pending, missed, rejected, accepted, negotiated, progress,
    /// ended or error; `duration` in seconds.
    case call(ChatItemDirection, status: String, duration: Int?)
    /// Everything else the core records in a chat as an event line: group, contact and connection
    /// events, features and preferences, group invitations, end-to-end encryption notes, integrity
    /// and decryption errors. `detail` names the inner event where the JSON has one (e.g.
    /// `memberAdded` of `rcvGroupEvent`); `raw` is the stored JSON.
    case event(ChatItemDirection?, tag: String, detail: String?, raw: String)
    /// A tag sxkit does not know (a newer core): kept with its raw JSON.
    case unknown(tag: String, raw: String)
    /// Not the single-key JSON object the core writes: kept as it is.
    case invalid(raw: String)

    /// Parses the stored text; never fails (see `unknown` and `invalid`).
    public static func parse(_ text: String) -> ChatItemContent {
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object.count == 1, let (tag, value) = object.first,
              let fields = value as? [String: Any] else {
            return .invalid(raw: text)
        }
        let direction = ChatItemDirection(tag: tag)
        switch tag {
        case "sndMsgContent", "rcvMsgContent":
            guard let content = fields["msgContent"] as? [String: Any] else { return .invalid(raw: text) }
            return .message(direction!, MessageContent(content))
        case "sndDeleted", "rcvDeleted":
            return .deleted(direction!, mode: fields["deleteMode"] as? String)
        case "sndModerated", "rcvModerated":
            return .moderated(direction!)
        case "rcvBlocked":
            return .blocked
        case "sndCall", "rcvCall":
            return .call(direction!, status: fields["status"] as? String ?? "unknown", duration: fields["duration"] as? Int)
        case "invalidJSON":
            // The core's own marker for content it could not parse when it wrote it.
            return .invalid(raw: fields["json"] as? String ?? text)
        default:
            guard eventTags.contains(tag) else { return .unknown(tag: tag, raw: text) }
            return .event(direction, tag: tag, detail: detail(of: tag, fields), raw: text)
        }
    }

    /// The non-message tags of the current core (CIContent.hs `DBJSONCIContent`).
    static let eventTags: Set<String> = [
        "rcvIntegrityError", "rcvDecryptionError", "rcvGroupInvitation", "sndGroupInvitation", "rcvDirectEvent", "rcvGroupEvent",
        "sndGroupEvent", "rcvConnEvent", "sndConnEvent", "rcvChatFeature", "sndChatFeature", "rcvChatPreference", "sndChatPreference",
        "rcvGroupFeature", "sndGroupFeature", "rcvChatFeatureRejected", "rcvGroupFeatureRejected", "rcvDirectSimpleE2E",
        "sndDirectE2EEInfo", "rcvDirectE2EEInfo", "sndGroupE2EEInfo", "rcvGroupE2EEInfo", "chatBanner",
    ]

    /// The inner name an event carries: the single key of its nested event (`{"rcvGroupEvent":
    /// {"rcvGroupEvent":{"memberAdded":{…}}}}`), a feature's name, an error's kind.
    private static func detail(of tag: String, _ fields: [String: Any]) -> String? {
        for key in [tag, "msgError"] {
            if let inner = fields[key] as? [String: Any], inner.count == 1 { return inner.keys.first }
        }
        for key in ["feature", "groupFeature", "msgDecryptError", "status"] {
            if let name = fields[key] as? String { return name }
        }
        if let invitation = fields["groupInvitation"] as? [String: Any] { return invitation["status"] as? String }
        return nil
    }
}

/// Sent by the user, or received.
public enum ChatItemDirection: String, Sendable, Equatable {
    case sent, received

    /// From a tag's `snd`/`rcv` prefix.
    init?(tag: String) {
        if tag.hasPrefix("snd") { self = .sent } else if tag.hasPrefix("rcv") { self = .received } else { return nil }
    }
}

/// A message's content (`MsgContent`, simplex-chat `src/Simplex/Chat/Protocol.hs`): its `type`
/// (text, link, image, video, voice, file, report, chat, or one a newer core added) and `text`,
/// with what each type adds.
public struct MessageContent: Sendable, Equatable {
    public var type: String
    public var text: String
    /// Voice and video: seconds.
    public var duration: Int?
    /// Image and video: the inline thumbnail, a `data:image/…;base64,…` URI.
    public var thumbnail: String?
    /// Link: the preview's page.
    public var preview: LinkPreview?
    /// Report: spam, content, community, profile, other, or any other text.
    public var reportReason: String?
    /// Chat link: contact, invitation or group.
    public var chatLinkType: String?

    public struct LinkPreview: Sendable, Equatable {
        public var uri: String
        public var title: String?
        public var description: String?
        public var image: String?

        public init(uri: String, title: String? = nil, description: String? = nil, image: String? = nil) {
            self.uri = uri
            self.title = title
            self.description = description
            self.image = image
        }
    }

    public static let knownTypes: Set<String> = ["text", "link", "image", "video", "voice", "file", "report", "chat"]

    /// Whether the type is one this sxkit knows (others are kept, marked, with their text).
    public var isKnownType: Bool { Self.knownTypes.contains(type) }

    init(_ object: [String: Any]) {
        type = object["type"] as? String ?? "unknown"
        text = object["text"] as? String ?? ""
        duration = object["duration"] as? Int
        thumbnail = object["image"] as? String
        reportReason = object["reason"] as? String
        chatLinkType = (object["chatLink"] as? [String: Any])?["type"] as? String
        if let p = object["preview"] as? [String: Any], let uri = p["uri"] as? String {
            preview = LinkPreview(uri: uri, title: p["title"] as? String, description: p["description"] as? String, image: p["image"] as? String)
        }
    }

    public init(type: String, text: String, duration: Int? = nil, thumbnail: String? = nil, preview: LinkPreview? = nil,
                reportReason: String? = nil, chatLinkType: String? = nil) {
        self.type = type
        self.text = text
        self.duration = duration
        self.thumbnail = thumbnail
        self.preview = preview
        self.reportReason = reportReason
        self.chatLinkType = chatLinkType
    }
}
