import Testing
import SXChats
import SXDatabase
import SXSample
import SXTestSupport

/// `item_content` as the core stores it, written out by hand from simplex-chat's `CIContent.hs`
/// (`DBJSONCIContent`, single-field JSON) and `Protocol.hs` (`MsgContent`), not by sxkit.
@Suite(.ownThreads) struct ChatItemContentTests {
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


/// The sample profile stores its items in the core's form, and holds what real conversations hold.
@Suite(.ownThreads) struct SampleItemContentTests {
    @Test("every sample item reads as a known kind in the stored form; the history has every state, over months")
    func everySampleItemIsKnownAndEveryStateOccurs() throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 2, documents: 2, chatItems: 1500))
        let (contents, counts) = try ReadAccess.read(data.directory.chatDatabase, passphrase: SampleDataDirectory.defaultPassphrase) { db, _ -> ([(Bool, ChatItemContent)], [String: Int64]) in
            let statement = try db.prepare("SELECT item_sent, item_content FROM chat_items ORDER BY chat_item_id")
            var out: [(Bool, ChatItemContent)] = []
            while try statement.step() { out.append((statement.int64(0) == 1, ChatItemContent.parse(statement.text(1) ?? ""))) }
            var counts: [String: Int64] = [:]
            let queries: [(String, String)] = [
                ("quotes", "SELECT count(*) FROM chat_items WHERE quoted_sent_at IS NOT NULL AND quoted_content IS NOT NULL AND quoted_shared_msg_id IS NOT NULL"),
                ("edited", "SELECT count(*) FROM chat_items WHERE item_edited = 1"),
                ("edited with two versions", "SELECT count(*) FROM (SELECT chat_item_id FROM chat_item_versions GROUP BY chat_item_id HAVING count(*) = 2)"),
                ("deleted", "SELECT count(*) FROM chat_items WHERE item_deleted = 1 AND item_deleted_by_group_member_id IS NULL"),
                ("moderated", "SELECT count(*) FROM chat_items WHERE item_deleted = 1 AND item_deleted_by_group_member_id IS NOT NULL AND item_content = '{\"rcvModerated\":{}}'"),
                ("blocked by admin", "SELECT count(*) FROM chat_items WHERE item_deleted = 3"),
                ("timed", "SELECT count(*) FROM chat_items WHERE timed_ttl > 0 AND timed_delete_at > item_ts"),
                ("live", "SELECT count(*) FROM chat_items WHERE item_live = 1"),
                ("forwarded", "SELECT count(*) FROM chat_items WHERE fwd_from_tag = 'contact' AND fwd_from_chat_name IS NOT NULL"),
                ("direct reactions", "SELECT count(*) FROM chat_item_reactions r JOIN chat_items i ON i.contact_id = r.contact_id AND i.shared_msg_id = r.shared_msg_id"),
                ("group reactions", """
                    SELECT count(*) FROM chat_item_reactions r JOIN chat_items i ON i.group_id = r.group_id AND i.shared_msg_id = r.shared_msg_id
                    JOIN group_members m ON m.group_id = i.group_id AND m.member_id = r.item_member_id
                     AND (m.group_member_id = i.group_member_id OR (i.group_member_id IS NULL AND m.member_category = 'user'))
                    """),
                ("links", "SELECT count(*) FROM chat_items WHERE item_content LIKE '%\"type\":\"link\"%\"preview\":{\"uri\"%'"),
                ("images", "SELECT count(*) FROM chat_items i JOIN files f ON f.chat_item_id = i.chat_item_id WHERE i.item_content LIKE '%\"type\":\"image\"%'"),
                ("voice", "SELECT count(*) FROM chat_items i JOIN files f ON f.chat_item_id = i.chat_item_id WHERE i.item_content LIKE '%\"type\":\"voice\",\"text\":\"\",\"duration\":%'"),
                ("notes of both users", "SELECT count(DISTINCT user_id) FROM chat_items WHERE note_folder_id IS NOT NULL"),
                ("received with a fraction", "SELECT count(*) FROM chat_items WHERE item_sent = 0 AND created_at LIKE '%.%' AND created_at > item_ts"),
                ("days", "SELECT count(DISTINCT substr(item_ts, 1, 10)) FROM chat_items"),
                ("months", "SELECT count(DISTINCT substr(item_ts, 1, 7)) FROM chat_items"),
                ("chats whose chat_ts is their last item", "SELECT count(*) FROM contacts c WHERE chat_ts = (SELECT max(item_ts) FROM chat_items i WHERE i.contact_id = c.contact_id)"),
            ]
            for (name, sql) in queries {
                counts[name] = try db.scalarInt(sql)
            }
            return (out, counts)
        }
        #expect(contents.count >= 1500)
        for (name, count) in counts.sorted(by: { $0.key < $1.key }) {
            #expect(count > 0, "the sample has no \(name)")
        }
        #expect(counts["notes of both users"] == 2)
        #expect(counts["months"]! >= 2, "the history spans months")
        var calls = 0, events = 0
        for (sent, content) in contents {
            switch content {
            case .message(let direction, let message):
                #expect(direction == (sent ? .sent : .received))
                #expect(message.isKnownType)
            case .call(let direction, _, _):
                #expect(direction == (sent ? .sent : .received))
                calls += 1
            case .event(_, let tag, let detail, _):
                #expect(tag == "rcvGroupEvent" && ["memberConnected", "memberLeft"].contains(detail ?? ""))
                events += 1
            case .moderated(.received):
                break
            default:
                Issue.record("not a kind the sample writes: \(content)")
            }
        }
        #expect(calls > 0 && events > 0)
    }
}
