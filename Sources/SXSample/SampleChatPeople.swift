import SXCore
import SXDatabase

/// The people of the sample chat database, written as the core links them: two users (each with a
/// display name, an own profile, an `is_user` contact and a notes folder), the first user's contacts
/// (display name, profile, contact, connection), and groups (display name, profile, the user's own
/// membership, and members who are contacts, each with a member connection). Connection ids are
/// shared with the agent database (`SampleAgentRows`), as `connections.agent_conn_id` is in a profile.
struct SampleChatPeople {
    let db: DatabaseConnection
    let contacts: Int
    let groups: Int
    let seed: Int

    static let created = SampleDatabases.created
    /// Members besides the user in each group (all of them contacts).
    static func membersPerGroup(contacts: Int) -> Int { min(contacts, 6) }
    /// Connections of the chat DB, which the agent DB holds too: one per contact and per member.
    static func connectionCount(contacts: Int, groups: Int) -> Int { contacts + groups * membersPerGroup(contacts: contacts) }

    /// The agent's id of connection `index`: the same bytes in both databases.
    static func agentConnectionID(_ index: Int, seed: Int) -> [UInt8] {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x1F3D_5B79 &+ UInt64(index))
        return (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    struct Written {
        var peers: ChatHistoryWriter.Peers
    }

    func write() throws -> Written {
        var peers = ChatHistoryWriter.Peers(contacts: [], groups: [])
        var rng = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        try transaction(db) {
            let names = (0..<contacts).map { i in Self.names[i % Self.names.count] + (i >= Self.names.count ? "_\(i + 2)" : "") }
            let workUserContact = Int64(contacts + 2)
            // The users' contact_id and display names are deferred foreign keys: checked at COMMIT.
            try db.execute("""
                INSERT INTO users (user_id, contact_id, local_display_name, active_user, created_at, updated_at, agent_user_id, active_order)
                VALUES (1, 1, 'alice', 1, '\(Self.created)', '\(Self.created)', 1, 2), (2, \(workUserContact), 'alice-work', 0, '\(Self.created)', '\(Self.created)', 2, 1)
                """)
            let displayName = try db.prepare(
                "INSERT INTO display_names (user_id, local_display_name, ldn_base, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
            let profile = try db.prepare("""
                INSERT INTO contact_profiles (contact_profile_id, display_name, full_name, created_at, updated_at, user_id, preferences)
                VALUES (?, ?, ?, ?, ?, ?, '{}')
                """)
            let contact = try db.prepare("""
                INSERT INTO contacts (contact_id, contact_profile_id, user_id, local_display_name, is_user, created_at, updated_at, contact_used, chat_ts)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
                """)
            let connection = try db.prepare("""
                INSERT INTO connections (connection_id, agent_conn_id, conn_status, conn_type, contact_id, group_member_id, user_id, created_at, updated_at,
                                         peer_chat_min_version, peer_chat_max_version, conn_chat_version)
                VALUES (?, ?, 'ready', ?, ?, ?, 1, ?, ?, 1, 16, 16)
                """)
            func person(user: Int64, id: Int64, name: String, isUser: Bool) throws {
                try displayName.run([.integer(user), .text(name), .text(name), .text(Self.created), .text(Self.created)])
                try profile.run([.integer(id), .text(name), .text(name.capitalized + " Example"), .text(Self.created), .text(Self.created), .integer(user)])
                try contact.run([.integer(id), .integer(id), .integer(user), .text(name), .integer(isUser ? 1 : 0), .text(Self.created),
                                 .text(Self.created), .text(Self.created)])
            }
            try person(user: 1, id: 1, name: "alice", isUser: true)
            try person(user: 2, id: workUserContact, name: "alice-work", isUser: true)
            var nextConnection: Int64 = 1
            for (i, name) in names.enumerated() {
                let id = Int64(i + 2)
                try person(user: 1, id: id, name: name, isUser: false)
                try connection.run([.integer(nextConnection), .blob(Self.agentConnectionID(Int(nextConnection - 1), seed: seed)), .text("contact"),
                                    .integer(id), .null, .text(Self.created), .text(Self.created)])
                peers.contacts.append(.init(contact: id, connection: nextConnection, name: name))
                nextConnection += 1
            }
            try db.execute("INSERT INTO note_folders (user_id, created_at, updated_at, chat_ts) VALUES (1, '\(Self.created)', '\(Self.created)', '\(Self.created)'), (2, '\(Self.created)', '\(Self.created)', '\(Self.created)')")

            let groupProfile = try db.prepare("""
                INSERT INTO group_profiles (group_profile_id, display_name, full_name, created_at, updated_at, user_id, preferences) VALUES (?, ?, '', ?, ?, 1, '{}')
                """)
            let group = try db.prepare("""
                INSERT INTO groups (group_id, user_id, local_display_name, group_profile_id, created_at, updated_at, chat_ts, summary_current_members_count, member_index)
                VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?)
                """)
            let member = try db.prepare("""
                INSERT INTO group_members (group_member_id, group_id, member_id, member_role, member_category, member_status, user_id, local_display_name,
                                           contact_profile_id, contact_id, created_at, updated_at, index_in_group, peer_chat_max_version)
                VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, 16)
                """)
            var nextMember: Int64 = 1
            let perGroup = Self.membersPerGroup(contacts: contacts)
            for g in 0..<groups {
                let id = Int64(g + 1)
                let name = Self.groupNames[g % Self.groupNames.count] + (g >= Self.groupNames.count ? "_\(g + 1)" : "")
                try displayName.run([.integer(1), .text(name), .text(name), .text(Self.created), .text(Self.created)])
                try groupProfile.run([.integer(id), .text(name), .text(Self.created), .text(Self.created)])
                try group.run([.integer(id), .text(name), .integer(id), .text(Self.created), .text(Self.created), .text(Self.created),
                               .integer(Int64(perGroup + 1)), .integer(Int64(perGroup + 1))])
                func memberID() -> [UInt8] { (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
                // The user's own membership: category `user`, holding the user's profile and contact.
                let ownMemberID = memberID()
                try member.run([.integer(nextMember), .integer(id), .blob(ownMemberID), .text("owner"), .text("user"), .text("creator"), .text("alice"),
                                .integer(1), .integer(1), .text(Self.created), .text(Self.created), .integer(0)])
                nextMember += 1
                var members: [ChatHistoryWriter.Peers.Member] = []
                for m in 0..<perGroup {
                    let contactID = peers.contacts[(m + g) % peers.contacts.count].contact
                    let sharedID = memberID()
                    try member.run([.integer(nextMember), .integer(id), .blob(sharedID), .text(m == 0 ? "admin" : "member"), .text("invitee"),
                                    .text("connected"), .text(names[Int(contactID) - 2]), .integer(contactID), .integer(contactID),
                                    .text(Self.created), .text(Self.created), .integer(Int64(m + 1))])
                    try connection.run([.integer(nextConnection), .blob(Self.agentConnectionID(Int(nextConnection - 1), seed: seed)), .text("member"),
                                        .null, .integer(nextMember), .text(Self.created), .text(Self.created)])
                    members.append(.init(member: nextMember, connection: nextConnection, memberID: sharedID, name: names[Int(contactID) - 2]))
                    nextMember += 1
                    nextConnection += 1
                }
                peers.groups.append(.init(group: id, ownMemberID: ownMemberID, members: members))
            }
        }
        return Written(peers: peers)
    }

    static let names = ["bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia",
                        "peggy", "rupert", "sybil", "trent", "victor", "walter"]
    static let groupNames = ["family", "book-club", "hiking", "team", "neighbours"]
}
