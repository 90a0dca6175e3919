import Testing
import SXChats
import SXDatabase
import SXSample
import SXTestSupport

/// `item_content` as the core stores it, written out by hand from simplex-chat's `CIContent.hs`
/// (`DBJSONCIContent`, single-field JSON) and `Protocol.hs` (`MsgContent`), not by sxkit.
@Suite struct ChatItemContentTests {
    @Test("messages of every type, sent and received")
    func messages() {
        #expect(ChatItemContent.parse(#"{"sndMsgContent":{"msgContent":{"type":"text","text":"hi"}}}"#)
                == .message(.sent, MessageContent(type: "text", text: "hi")))
        #expect(ChatItemContent.parse(#"{"rcvMsgContent":{"msgContent":{"type":"voice","text":"","duration":9}}}"#)
                == .message(.received, MessageContent(type: "voice", text: "", duration: 9)))
        #expect(ChatItemContent.parse(#"{"rcvMsgContent":{"msgContent":{"type":"video","text":"","image":"data:image/jpg;base64,/9j/","duration":17}}}"#)
                == .message(.received, MessageContent(type: "video", text: "", duration: 17, thumbnail: "data:image/jpg;base64,/9j/")))
        let link = #"{"sndMsgContent":{"msgContent":{"type":"link","text":"see https://x.y","preview":{"uri":"https://x.y","title":"X","description":"d","image":"data:image/jpg;base64,AA==","content":{"type":"page"}}}}}"#
        #expect(ChatItemContent.parse(link) == .message(.sent, MessageContent(type: "link", text: "see https://x.y",
                preview: .init(uri: "https://x.y", title: "X", description: "d", image: "data:image/jpg;base64,AA=="))))
        #expect(ChatItemContent.parse(#"{"rcvMsgContent":{"msgContent":{"type":"report","text":"bad","reason":"spam"}}}"#)
                == .message(.received, MessageContent(type: "report", text: "bad", reportReason: "spam")))
        #expect(ChatItemContent.parse(#"{"rcvMsgContent":{"msgContent":{"type":"chat","text":"","chatLink":{"type":"group","connLink":"x","groupProfile":{}}}}}"#)
                == .message(.received, MessageContent(type: "chat", text: "", chatLinkType: "group")))
        // A type from a newer core: kept with its text, marked unknown.
        guard case .message(_, let future) = ChatItemContent.parse(#"{"rcvMsgContent":{"msgContent":{"type":"poll","text":"lunch?","options":["a"]}}}"#) else {
            Issue.record("a future message type is still a message")
            return
        }
        #expect(future.type == "poll" && future.text == "lunch?" && !future.isKnownType)
        #expect(MessageContent(type: "image", text: "").isKnownType)
    }

    @Test("deletions, moderation, blocking and calls")
    func deletedAndCalls() {
        #expect(ChatItemContent.parse(#"{"sndDeleted":{"deleteMode":"broadcast"}}"#) == .deleted(.sent, mode: "broadcast"))
        #expect(ChatItemContent.parse(#"{"rcvModerated":{}}"#) == .moderated(.received))
        #expect(ChatItemContent.parse(#"{"rcvBlocked":{}}"#) == .blocked)
        #expect(ChatItemContent.parse(#"{"rcvCall":{"status":"ended","duration":62}}"#) == .call(.received, status: "ended", duration: 62))
        #expect(ChatItemContent.parse(#"{"sndCall":{"status":"missed"}}"#) == .call(.sent, status: "missed", duration: nil))
    }

    @Test("events keep their inner name and raw JSON; group events are nested twice")
    func events() {
        let group = #"{"rcvGroupEvent":{"rcvGroupEvent":{"memberAdded":{"groupMemberId":7,"profile":{"displayName":"bob","fullName":""}}}}}"#
        #expect(ChatItemContent.parse(group) == .event(.received, tag: "rcvGroupEvent", detail: "memberAdded", raw: group))
        let feature = #"{"sndChatFeature":{"feature":"timedMessages","enabled":{"forUser":true,"forContact":true},"param":86400}}"#
        #expect(ChatItemContent.parse(feature) == .event(.sent, tag: "sndChatFeature", detail: "timedMessages", raw: feature))
        let integrity = #"{"rcvIntegrityError":{"msgError":{"msgSkipped":{"fromMsgId":5,"toMsgId":7}}}}"#
        #expect(ChatItemContent.parse(integrity) == .event(.received, tag: "rcvIntegrityError", detail: "msgSkipped", raw: integrity))
        let decryption = #"{"rcvDecryptionError":{"msgDecryptError":"ratchetHeader","msgCount":2}}"#
        #expect(ChatItemContent.parse(decryption) == .event(.received, tag: "rcvDecryptionError", detail: "ratchetHeader", raw: decryption))
        let e2ee = #"{"sndDirectE2EEInfo":{"e2eeInfo":{"pqEnabled":true}}}"#
        #expect(ChatItemContent.parse(e2ee) == .event(.sent, tag: "sndDirectE2EEInfo", detail: nil, raw: e2ee))
        #expect(ChatItemContent.parse(#"{"chatBanner":{}}"#) == .event(nil, tag: "chatBanner", detail: nil, raw: #"{"chatBanner":{}}"#))
    }

    @Test("a future tag, the API form, malformed JSON and the core's own invalidJSON are kept, never dropped")
    func keptAsTheyAre() {
        #expect(ChatItemContent.parse(#"{"rcvHologram":{"x":1}}"#) == .unknown(tag: "rcvHologram", raw: #"{"rcvHologram":{"x":1}}"#))
        // The apps' API form is not what the database holds.
        let api = #"{"type":"rcvMsgContent","msgContent":{"type":"text","text":"hi"}}"#
        #expect(ChatItemContent.parse(api) == .invalid(raw: api))
        #expect(ChatItemContent.parse("{not json") == .invalid(raw: "{not json"))
        #expect(ChatItemContent.parse(#"{"sndMsgContent":{}}"#) == .invalid(raw: #"{"sndMsgContent":{}}"#))
        #expect(ChatItemContent.parse(#"{"invalidJSON":{"direction":"rcv","json":"{oops"}}"#) == .invalid(raw: "{oops"))
    }
}


/// The sample profile stores its items in the core's form, so each reads as a message.
@Suite struct SampleItemContentTests {
    @Test func everySampleItemIsAMessageInTheStoredForm() throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try SampleDataDirectory.create(at: folder.file("data"), options: .init(photos: 1, documents: 1, chatItems: 80))
        let contents = try ReadAccess.read(data.directory.chatDatabase, passphrase: SampleDataDirectory.defaultPassphrase) { db, _ in
            let statement = try db.prepare("SELECT item_sent, item_content FROM chat_items ORDER BY chat_item_id")
            var out: [(Bool, ChatItemContent)] = []
            while try statement.step() { out.append((statement.int64(0) == 1, ChatItemContent.parse(statement.text(1) ?? ""))) }
            return out
        }
        #expect(contents.count >= 80)
        for (sent, content) in contents {
            guard case .message(let direction, let message) = content else {
                Issue.record("not a message: \(content)")
                continue
            }
            #expect(direction == (sent ? .sent : .received))
            #expect(message.isKnownType)
        }
    }
}
