import SXCore
import SXDatabase

/// The rows of the sample agent database: the two users, SMP servers, one duplex connection for each
/// connection of the chat database (same ids) with its receive and send queue and a few messages each
/// way, a notification server, XFTP servers, and one half-received and one half-sent relay transfer
/// (the chunk state a migration must keep).
struct SampleAgentRows {
    let db: DatabaseConnection
    let connections: Int
    let seed: Int

    static let servers = [("smp8.simplex.im", "5223"), ("smp9.simplex.im", "5223"), ("smp10.simplex.im", "5223")]
    /// Messages per connection, alternating received and sent.
    static let messagesPerConnection = 5

    func write() throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 31 &+ 5)
        func bytes(_ n: Int) -> ColumnValue { .blob((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) }
        let ts = SampleDatabases.created
        try db.execute("INSERT INTO users (user_id, deleted) VALUES (1, 0), (2, 0)")
        let server = try db.prepare("INSERT INTO servers (host, port, key_hash) VALUES (?, ?, ?)")
        for (host, port) in Self.servers { try server.run([.text(host), .text(port), bytes(32)]) }

        let received = (Self.messagesPerConnection + 1) / 2
        let sent = Self.messagesPerConnection / 2
        let connection = try db.prepare("""
            INSERT INTO connections (conn_id, conn_mode, last_internal_msg_id, last_internal_rcv_msg_id, last_internal_snd_msg_id,
                                     last_external_snd_msg_id, smp_agent_version, duplex_handshake, enable_ntfs, user_id)
            VALUES (?, ?, \(Self.messagesPerConnection), \(received), \(sent), \(received), 7, 1, 1, 1)
            """)
        let rcvQueue = try db.prepare("""
            INSERT INTO rcv_queues (host, port, rcv_id, conn_id, rcv_private_key, rcv_dh_secret, e2e_priv_key, e2e_dh_secret, snd_id, status,
                                    smp_server_version, smp_client_version, rcv_queue_id, rcv_primary)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', 9, 4, 1, 1)
            """)
        let sndQueue = try db.prepare("""
            INSERT INTO snd_queues (host, port, snd_id, conn_id, snd_private_key, e2e_dh_secret, status, smp_server_version, smp_client_version,
                                    snd_public_key, snd_queue_id, snd_primary)
            VALUES (?, ?, ?, ?, ?, ?, 'active', 9, 4, ?, 1, 1)
            """)
        let message = try db.prepare("""
            INSERT INTO messages (conn_id, internal_id, internal_ts, internal_rcv_id, internal_snd_id, msg_type, msg_body) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        let rcvMessage = try db.prepare("""
            INSERT INTO rcv_messages (conn_id, internal_rcv_id, internal_id, external_snd_id, broker_id, broker_ts, internal_hash,
                                      external_prev_snd_hash, integrity, user_ack, rcv_queue_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, x'00', 1, 1)
            """)
        let sndMessage = try db.prepare(
            "INSERT INTO snd_messages (conn_id, internal_snd_id, internal_id, internal_hash, previous_msg_hash) VALUES (?, ?, ?, ?, ?)")
        for c in 0..<connections {
            let connID = ColumnValue.blob(SampleChatPeople.agentConnectionID(c, seed: seed))
            let (host, port) = Self.servers[c % Self.servers.count]
            try connection.run([connID, .text(c % 3 == 0 ? "CON" : "INV")])
            try rcvQueue.run([.text(host), .text(port), bytes(24), connID, bytes(48), bytes(32), bytes(48), bytes(32), bytes(24)])
            try sndQueue.run([.text(host), .text(port), bytes(24), connID, bytes(48), bytes(32), bytes(44)])
            var rcvID: Int64 = 0, sndID: Int64 = 0
            for m in 1...Self.messagesPerConnection {
                if m % 2 == 1 {
                    rcvID += 1
                    try message.run([connID, .integer(Int64(m)), .text(ts), .integer(rcvID), .null, .blob(Array("M".utf8)), bytes(180)])
                    try rcvMessage.run([connID, .integer(rcvID), .integer(Int64(m)), .integer(rcvID), bytes(24), .text(ts), bytes(32), bytes(32)])
                } else {
                    sndID += 1
                    try message.run([connID, .integer(Int64(m)), .text(ts), .null, .integer(sndID), .blob(Array("M".utf8)), bytes(180)])
                    try sndMessage.run([connID, .integer(sndID), .integer(Int64(m)), bytes(32), bytes(32)])
                }
            }
        }
        try db.execute("INSERT INTO ntf_servers (ntf_host, ntf_port, ntf_key_hash) VALUES ('ntf2.simplex.im', '443', x'00')")
        let xftp = try db.prepare("INSERT INTO xftp_servers (xftp_server_id, xftp_host, xftp_port, xftp_key_hash) VALUES (?, ?, '443', ?)")
        for i in 1...2 { try xftp.run([.integer(Int64(i)), .text("xftp\(i).simplex.im"), bytes(32)]) }
        try transfers(bytes)
    }

    /// One half-received and one half-sent relay transfer.
    private func transfers(_ bytes: (Int) -> ColumnValue) throws {
        try db.execute("""
            INSERT INTO rcv_files (rcv_file_id, rcv_file_entity_id, user_id, size, digest, key, nonce, chunk_size, prefix_path, tmp_path, save_path, status)
            VALUES (1, x'0102', 1, 12582912, zeroblob(64), zeroblob(32), zeroblob(24), 4194304, 'tmp/rcv1', 'tmp/rcv1/xftp.encrypted', 'simplex_v1_files/video.mp4', 'receiving');
            INSERT INTO snd_files (snd_file_id, snd_file_entity_id, user_id, num_recipients, digest, key, nonce, path, prefix_path, status)
            VALUES (1, x'0304', 1, 1, zeroblob(64), zeroblob(32), zeroblob(24), 'simplex_v1_files/IMG_1000.jpg', 'tmp/snd1', 'uploading');
            """)
        let rcvChunk = try db.prepare("INSERT INTO rcv_file_chunks (rcv_file_chunk_id, rcv_file_id, chunk_no, chunk_size, digest, tmp_path) VALUES (?, 1, ?, 4194304, ?, ?)")
        let rcvReplica = try db.prepare("""
            INSERT INTO rcv_file_chunk_replicas (rcv_file_chunk_id, replica_number, xftp_server_id, replica_id, replica_key, received) VALUES (?, 1, ?, ?, ?, ?)
            """)
        let sndChunk = try db.prepare("INSERT INTO snd_file_chunks (snd_file_chunk_id, snd_file_id, chunk_no, chunk_offset, chunk_size, digest) VALUES (?, 1, ?, ?, 1048576, ?)")
        let sndReplica = try db.prepare("""
            INSERT INTO snd_file_chunk_replicas (snd_file_chunk_id, replica_number, xftp_server_id, replica_id, replica_key, replica_status) VALUES (?, 1, ?, ?, ?, ?)
            """)
        for n in 1...3 {
            let chunk = ColumnValue.integer(Int64(n))
            let server = ColumnValue.integer(Int64(1 + n % 2))
            try rcvChunk.run([chunk, chunk, bytes(32), n == 1 ? .text("tmp/rcv1/chunk\(n)") : .null])
            try rcvReplica.run([chunk, server, bytes(24), bytes(48), .integer(n == 1 ? 1 : 0)])
            try sndChunk.run([chunk, chunk, .integer(Int64((n - 1) * 1_048_576)), bytes(32)])
            try sndReplica.run([chunk, server, bytes(24), bytes(48), .text(n == 1 ? "uploaded" : "created")])
        }
    }
}
