import FuzzSupport
import SXChats

/// `chat_items.item_content` as `chats list` and `chats export` read it: the core's single-key JSON
/// object, or anything else (kept as invalid). Parsing never fails, so only a crash is a finding.
@main
enum FuzzItemContent: FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        _ = ChatItemContent.parse(String(decoding: bytes, as: UTF8.self))
    }

    /// One of each kind the core stores.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        [
            ("message", #"{"sndMsgContent":{"msgContent":{"type":"text","text":"hello"}}}"#),
            ("link", #"{"rcvMsgContent":{"msgContent":{"type":"link","text":"see","preview":{"uri":"https://example.org","title":"t","description":"d","image":"data:image/jpg;base64,AA=="}}}}"#),
            ("voice", #"{"rcvMsgContent":{"msgContent":{"type":"voice","text":"","duration":12}}}"#),
            ("report", #"{"sndMsgContent":{"msgContent":{"type":"report","text":"spam","reason":"spam"}}}"#),
            ("chat", #"{"rcvMsgContent":{"msgContent":{"type":"chat","text":"","chatLink":{"type":"group"}}}}"#),
            ("deleted", #"{"sndDeleted":{"deleteMode":"broadcast"}}"#),
            ("moderated", #"{"rcvModerated":{}}"#),
            ("blocked", #"{"rcvBlocked":{}}"#),
            ("call", #"{"sndCall":{"status":"ended","duration":61}}"#),
            ("group-event", #"{"rcvGroupEvent":{"rcvGroupEvent":{"memberAdded":{"groupMemberId":1,"profile":{}}}}}"#),
            ("feature", #"{"rcvChatFeature":{"feature":"voice","enabled":{"forUser":true}}}"#),
            ("decryption-error", #"{"rcvDecryptionError":{"msgDecryptError":"ratchetHeader","msgCount":2}}"#),
            ("invalid-json", #"{"invalidJSON":{"json":"{broken"}}"#),
            ("unknown", #"{"sndFutureThing":{"x":[1,2.5,null,true]}}"#),
        ].map { ($0.0, Array($0.1.utf8)) }
    }
}
