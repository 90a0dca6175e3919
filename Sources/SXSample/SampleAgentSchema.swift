/// sxkit's own DDL for the sample agent database: a subset of the tables of a real `…_agent.db` —
/// servers, connections with their queues and messages, users, and the XFTP send/receive state — and
/// every table their foreign keys name, each with the real columns in the real order, types,
/// constraints and STRICT, as simplexmq `src/Simplex/Messaging/Agent/Store/SQLite/Migrations/agent_schema.sql`
/// @92598c2 declares them (line numbers below). Written from those facts, not copied; a selection of
/// the real indexes.
enum SampleAgentSchema {
    static let statements: [String] = tables + indexes

    static let tables: [String] = [
        // agent_schema.sql:1-5.
        """
        CREATE TABLE migrations(name TEXT NOT NULL PRIMARY KEY, ts TEXT NOT NULL, down TEXT) STRICT
        """,
        // agent_schema.sql:6-11.
        """
        CREATE TABLE servers(
          host TEXT NOT NULL,
          port TEXT NOT NULL,
          key_hash BLOB NOT NULL,
          PRIMARY KEY(host, port)
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:12-31.
        """
        CREATE TABLE connections(
          conn_id BLOB NOT NULL PRIMARY KEY,
          conn_mode TEXT NOT NULL,
          last_internal_msg_id INTEGER NOT NULL DEFAULT 0,
          last_internal_rcv_msg_id INTEGER NOT NULL DEFAULT 0,
          last_internal_snd_msg_id INTEGER NOT NULL DEFAULT 0,
          last_external_snd_msg_id INTEGER NOT NULL DEFAULT 0,
          last_rcv_msg_hash BLOB NOT NULL DEFAULT x'',
          last_snd_msg_hash BLOB NOT NULL DEFAULT x'',
          smp_agent_version INTEGER NOT NULL DEFAULT 1,
          duplex_handshake INTEGER NULL DEFAULT 0,
          enable_ntfs INTEGER,
          deleted INTEGER DEFAULT 0 CHECK(deleted NOT NULL),
          user_id INTEGER CHECK(user_id NOT NULL) REFERENCES users ON DELETE CASCADE,
          ratchet_sync_state TEXT NOT NULL DEFAULT 'ok',
          deleted_at_wait_delivery TEXT,
          pq_support INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:32-70.
        """
        CREATE TABLE rcv_queues(
          host TEXT NOT NULL,
          port TEXT NOT NULL,
          rcv_id BLOB NOT NULL,
          conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
          rcv_private_key BLOB NOT NULL,
          rcv_dh_secret BLOB NOT NULL,
          e2e_priv_key BLOB NOT NULL,
          e2e_dh_secret BLOB,
          snd_id BLOB NOT NULL,
          snd_key BLOB,
          status TEXT NOT NULL,
          smp_server_version INTEGER NOT NULL DEFAULT 1,
          smp_client_version INTEGER,
          ntf_public_key BLOB,
          ntf_private_key BLOB,
          ntf_id BLOB,
          rcv_ntf_dh_secret BLOB,
          rcv_queue_id INTEGER CHECK(rcv_queue_id NOT NULL),
          rcv_primary INTEGER CHECK(rcv_primary NOT NULL),
          replace_rcv_queue_id INTEGER NULL,
          delete_errors INTEGER DEFAULT 0 CHECK(delete_errors NOT NULL),
          server_key_hash BLOB,
          switch_status TEXT,
          deleted INTEGER NOT NULL DEFAULT 0,
          last_broker_ts TEXT,
          link_id BLOB,
          link_key BLOB,
          link_priv_sig_key BLOB,
          link_enc_fixed_data BLOB,
          queue_mode TEXT,
          to_subscribe INTEGER NOT NULL DEFAULT 0,
          client_notice_id INTEGER REFERENCES client_notices ON UPDATE RESTRICT ON DELETE SET NULL,
          PRIMARY KEY(host, port, rcv_id),
          FOREIGN KEY(host, port) REFERENCES servers ON DELETE RESTRICT ON UPDATE CASCADE,
          UNIQUE(host, port, snd_id)
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:71-92.
        """
        CREATE TABLE snd_queues(
          host TEXT NOT NULL,
          port TEXT NOT NULL,
          snd_id BLOB NOT NULL,
          conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
          snd_private_key BLOB NOT NULL,
          e2e_dh_secret BLOB NOT NULL,
          status TEXT NOT NULL,
          smp_server_version INTEGER NOT NULL DEFAULT 1,
          smp_client_version INTEGER NOT NULL DEFAULT 1,
          snd_public_key BLOB,
          e2e_pub_key BLOB,
          snd_queue_id INTEGER CHECK(snd_queue_id NOT NULL),
          snd_primary INTEGER CHECK(snd_primary NOT NULL),
          replace_snd_queue_id INTEGER NULL,
          server_key_hash BLOB,
          switch_status TEXT,
          queue_mode TEXT,
          PRIMARY KEY(host, port, snd_id),
          FOREIGN KEY(host, port) REFERENCES servers ON DELETE RESTRICT ON UPDATE CASCADE
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:93-109.
        """
        CREATE TABLE messages(
          conn_id BLOB NOT NULL REFERENCES connections(conn_id) ON DELETE CASCADE,
          internal_id INTEGER NOT NULL,
          internal_ts TEXT NOT NULL,
          internal_rcv_id INTEGER,
          internal_snd_id INTEGER,
          msg_type BLOB NOT NULL,
          msg_body BLOB NOT NULL DEFAULT x'',
          msg_flags TEXT NULL,
          pq_encryption INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY(conn_id, internal_id),
          FOREIGN KEY(conn_id, internal_rcv_id) REFERENCES rcv_messages ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
          FOREIGN KEY(conn_id, internal_snd_id) REFERENCES snd_messages ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:110-126.
        """
        CREATE TABLE rcv_messages(
          conn_id BLOB NOT NULL,
          internal_rcv_id INTEGER NOT NULL,
          internal_id INTEGER NOT NULL,
          external_snd_id INTEGER NOT NULL,
          broker_id BLOB NOT NULL,
          broker_ts TEXT NOT NULL,
          internal_hash BLOB NOT NULL,
          external_prev_snd_hash BLOB NOT NULL,
          integrity BLOB NOT NULL,
          user_ack INTEGER NULL DEFAULT 0,
          rcv_queue_id INTEGER CHECK(rcv_queue_id NOT NULL),
          receive_attempts INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY(conn_id, internal_rcv_id),
          FOREIGN KEY(conn_id, internal_id) REFERENCES messages ON DELETE CASCADE
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:127-143.
        """
        CREATE TABLE snd_messages(
          conn_id BLOB NOT NULL,
          internal_snd_id INTEGER NOT NULL,
          internal_id INTEGER NOT NULL,
          internal_hash BLOB NOT NULL,
          previous_msg_hash BLOB NOT NULL DEFAULT x'',
          retry_int_slow INTEGER,
          retry_int_fast INTEGER,
          rcpt_internal_id INTEGER,
          rcpt_status TEXT,
          msg_encrypt_key BLOB,
          padded_msg_len INTEGER,
          snd_message_body_id INTEGER REFERENCES snd_message_bodies ON DELETE SET NULL,
          PRIMARY KEY(conn_id, internal_snd_id),
          FOREIGN KEY(conn_id, internal_id) REFERENCES messages ON DELETE CASCADE
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:190-197.
        """
        CREATE TABLE ntf_servers(
          ntf_host TEXT NOT NULL,
          ntf_port TEXT NOT NULL,
          ntf_key_hash BLOB NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          PRIMARY KEY(ntf_host, ntf_port)
        ) WITHOUT ROWID, STRICT
        """,
        // agent_schema.sql:266-270.
        """
        CREATE TABLE users(
          user_id INTEGER PRIMARY KEY AUTOINCREMENT,
          deleted INTEGER DEFAULT 0 CHECK(deleted NOT NULL)
        ) STRICT
        """,
        // agent_schema.sql:271-279.
        """
        CREATE TABLE xftp_servers(
          xftp_server_id INTEGER PRIMARY KEY,
          xftp_host TEXT NOT NULL,
          xftp_port TEXT NOT NULL,
          xftp_key_hash BLOB NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          UNIQUE(xftp_host, xftp_port, xftp_key_hash)
        ) STRICT
        """,
        // agent_schema.sql:280-306.
        """
        CREATE TABLE rcv_files(
          rcv_file_id INTEGER PRIMARY KEY,
          rcv_file_entity_id BLOB NOT NULL,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          size INTEGER NOT NULL,
          digest BLOB NOT NULL,
          key BLOB NOT NULL,
          nonce BLOB NOT NULL,
          chunk_size INTEGER NOT NULL,
          prefix_path TEXT NOT NULL,
          tmp_path TEXT,
          save_path TEXT NOT NULL,
          status TEXT NOT NULL,
          deleted INTEGER NOT NULL DEFAULT 0,
          error TEXT,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          save_file_key BLOB,
          save_file_nonce BLOB,
          failed INTEGER DEFAULT 0,
          redirect_id INTEGER REFERENCES rcv_files ON DELETE SET NULL,
          redirect_entity_id BLOB,
          redirect_size INTEGER,
          redirect_digest BLOB,
          approved_relays INTEGER NOT NULL DEFAULT 0,
          UNIQUE(rcv_file_entity_id)
        ) STRICT
        """,
        // agent_schema.sql:307-316.
        """
        CREATE TABLE rcv_file_chunks(
          rcv_file_chunk_id INTEGER PRIMARY KEY,
          rcv_file_id INTEGER NOT NULL REFERENCES rcv_files ON DELETE CASCADE,
          chunk_no INTEGER NOT NULL,
          chunk_size INTEGER NOT NULL,
          digest BLOB NOT NULL,
          tmp_path TEXT,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // agent_schema.sql:317-329.
        """
        CREATE TABLE rcv_file_chunk_replicas(
          rcv_file_chunk_replica_id INTEGER PRIMARY KEY,
          rcv_file_chunk_id INTEGER NOT NULL REFERENCES rcv_file_chunks ON DELETE CASCADE,
          replica_number INTEGER NOT NULL,
          xftp_server_id INTEGER NOT NULL REFERENCES xftp_servers ON DELETE CASCADE,
          replica_id BLOB NOT NULL,
          replica_key BLOB NOT NULL,
          received INTEGER NOT NULL DEFAULT 0,
          delay INTEGER,
          retries INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // agent_schema.sql:330-351.
        """
        CREATE TABLE snd_files(
          snd_file_id INTEGER PRIMARY KEY,
          snd_file_entity_id BLOB NOT NULL,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          num_recipients INTEGER NOT NULL,
          digest BLOB,
          key BLOB NOT NULL,
          nonce BLOB NOT NULL,
          path TEXT NOT NULL,
          prefix_path TEXT,
          status TEXT NOT NULL,
          deleted INTEGER NOT NULL DEFAULT 0,
          error TEXT,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          src_file_key BLOB,
          src_file_nonce BLOB,
          failed INTEGER DEFAULT 0,
          redirect_size INTEGER,
          redirect_digest BLOB
        ) STRICT
        """,
        // agent_schema.sql:352-361.
        """
        CREATE TABLE snd_file_chunks(
          snd_file_chunk_id INTEGER PRIMARY KEY,
          snd_file_id INTEGER NOT NULL REFERENCES snd_files ON DELETE CASCADE,
          chunk_no INTEGER NOT NULL,
          chunk_offset INTEGER NOT NULL,
          chunk_size INTEGER NOT NULL,
          digest BLOB NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // agent_schema.sql:362-374.
        """
        CREATE TABLE snd_file_chunk_replicas(
          snd_file_chunk_replica_id INTEGER PRIMARY KEY,
          snd_file_chunk_id INTEGER NOT NULL REFERENCES snd_file_chunks ON DELETE CASCADE,
          replica_number INTEGER NOT NULL,
          xftp_server_id INTEGER NOT NULL REFERENCES xftp_servers ON DELETE CASCADE,
          replica_id BLOB NOT NULL,
          replica_key BLOB NOT NULL,
          replica_status TEXT NOT NULL,
          delay INTEGER,
          retries INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // agent_schema.sql:375-382.
        """
        CREATE TABLE snd_file_chunk_replica_recipients(
          snd_file_chunk_replica_recipient_id INTEGER PRIMARY KEY,
          snd_file_chunk_replica_id INTEGER NOT NULL REFERENCES snd_file_chunk_replicas ON DELETE CASCADE,
          rcv_replica_id BLOB NOT NULL,
          rcv_replica_key BLOB NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // agent_schema.sql:428-431.
        """
        CREATE TABLE snd_message_bodies(
          snd_message_body_id INTEGER PRIMARY KEY,
          agent_msg BLOB NOT NULL DEFAULT x''
        ) STRICT
        """,
        // agent_schema.sql:443-453.
        """
        CREATE TABLE client_notices(
          client_notice_id INTEGER PRIMARY KEY AUTOINCREMENT,
          protocol TEXT NOT NULL,
          host TEXT NOT NULL,
          port TEXT NOT NULL,
          entity_id BLOB NOT NULL,
          server_key_hash BLOB,
          notice_ttl INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        ) STRICT
        """,
    ]

    /// Real index names and columns (agent_schema.sql lines given), a selection per table.
    static let indexes: [String] = [
        "CREATE INDEX idx_connections_user ON connections(user_id)", // 461
        "CREATE UNIQUE INDEX idx_rcv_queue_id ON rcv_queues(conn_id, rcv_queue_id)", // 455
        "CREATE UNIQUE INDEX idx_snd_queue_id ON snd_queues(conn_id, snd_queue_id)", // 456
        "CREATE INDEX idx_snd_queues_host_port ON snd_queues(host, port)", // 503
        "CREATE INDEX idx_messages_conn_id_internal_snd_id ON messages(conn_id, internal_snd_id)", // 468-471
        "CREATE INDEX idx_messages_conn_id_internal_rcv_id ON messages(conn_id, internal_rcv_id)", // 472-475
        "CREATE INDEX idx_messages_conn_id ON messages(conn_id)", // 476
        "CREATE INDEX idx_messages_internal_ts ON messages(internal_ts)", // 558
        "CREATE INDEX idx_rcv_messages_conn_id_internal_id ON rcv_messages(conn_id, internal_id)", // 490-493
        "CREATE INDEX idx_snd_messages_conn_id_internal_id ON snd_messages(conn_id, internal_id)", // 499-502
        "CREATE INDEX idx_rcv_files_user_id ON rcv_files(user_id)", // 504
        "CREATE INDEX idx_rcv_file_chunks_rcv_file_id ON rcv_file_chunks(rcv_file_id)", // 505
        "CREATE INDEX idx_rcv_file_chunk_replicas_rcv_file_chunk_id ON rcv_file_chunk_replicas(rcv_file_chunk_id)", // 506-508
        "CREATE INDEX idx_snd_files_user_id ON snd_files(user_id)", // 512
        "CREATE INDEX idx_snd_file_chunks_snd_file_id ON snd_file_chunks(snd_file_id)", // 513
        "CREATE INDEX idx_snd_file_chunk_replicas_snd_file_chunk_id ON snd_file_chunk_replicas(snd_file_chunk_id)", // 514-516
        "CREATE INDEX idx_snd_file_chunk_replicas_xftp_server_id ON snd_file_chunk_replicas(xftp_server_id)", // 517-519
    ]
}
