/// The agent database schema as a faithful subset of the app's own migrations: servers, connections
/// with their queues, and the relay-transfer chunk state (XFTP send and receive). Recent steps carry
/// down SQL, like the app's.
public enum AgentSchema {
    public static let migrations: [Migration] = [
        Migration(name: "m20220101_initial", up: """
            CREATE TABLE servers (
              host TEXT NOT NULL,
              port TEXT NOT NULL,
              key_hash BLOB NOT NULL,
              created_at TEXT NOT NULL DEFAULT (datetime('now')),
              PRIMARY KEY (host, port)
            ) WITHOUT ROWID;
            CREATE TABLE connections (
              conn_id BLOB NOT NULL PRIMARY KEY,
              conn_mode TEXT NOT NULL,
              last_internal_msg_id INTEGER NOT NULL DEFAULT 0,
              last_internal_rcv_msg_id INTEGER NOT NULL DEFAULT 0,
              last_internal_snd_msg_id INTEGER NOT NULL DEFAULT 0,
              created_at TEXT NOT NULL DEFAULT (datetime('now'))
            ) WITHOUT ROWID;
            CREATE TABLE rcv_queues (
              host TEXT NOT NULL,
              port TEXT NOT NULL,
              rcv_id BLOB NOT NULL,
              conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
              rcv_private_key BLOB NOT NULL,
              rcv_dh_secret BLOB NOT NULL,
              snd_id BLOB NOT NULL,
              status TEXT NOT NULL,
              PRIMARY KEY (host, port, rcv_id),
              FOREIGN KEY (host, port) REFERENCES servers ON DELETE RESTRICT ON UPDATE CASCADE
            ) WITHOUT ROWID;
            CREATE TABLE snd_queues (
              host TEXT NOT NULL,
              port TEXT NOT NULL,
              snd_id BLOB NOT NULL,
              conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
              snd_private_key BLOB NOT NULL,
              status TEXT NOT NULL,
              PRIMARY KEY (host, port, snd_id),
              FOREIGN KEY (host, port) REFERENCES servers ON DELETE RESTRICT ON UPDATE CASCADE
            ) WITHOUT ROWID;
            CREATE TABLE messages (
              conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
              internal_id INTEGER NOT NULL,
              internal_ts TEXT NOT NULL,
              msg_type BLOB NOT NULL,
              msg_body BLOB NOT NULL DEFAULT x'',
              PRIMARY KEY (conn_id, internal_id)
            ) WITHOUT ROWID;
            """),
        Migration(name: "m20220322_notifications", up: """
            CREATE TABLE ntf_servers (
              ntf_host TEXT NOT NULL,
              ntf_port TEXT NOT NULL,
              ntf_key_hash BLOB NOT NULL,
              created_at TEXT NOT NULL DEFAULT (datetime('now')),
              PRIMARY KEY (ntf_host, ntf_port)
            ) WITHOUT ROWID;
            """),
        Migration(name: "m20230110_users", up: """
            CREATE TABLE users (user_id INTEGER PRIMARY KEY AUTOINCREMENT, deleted INTEGER NOT NULL DEFAULT 0);
            INSERT INTO users (user_id) VALUES (1);
            ALTER TABLE connections ADD COLUMN user_id INTEGER CHECK (user_id NOT NULL) REFERENCES users ON DELETE CASCADE;
            UPDATE connections SET user_id = 1;
            """),
        Migration(name: "m20230223_files", up: """
            CREATE TABLE xftp_servers (
              xftp_server_id INTEGER PRIMARY KEY,
              xftp_host TEXT NOT NULL,
              xftp_port TEXT NOT NULL,
              xftp_key_hash BLOB NOT NULL,
              created_at TEXT NOT NULL DEFAULT (datetime('now')),
              UNIQUE (xftp_host, xftp_port, xftp_key_hash)
            );
            CREATE TABLE rcv_files (
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
              created_at TEXT NOT NULL DEFAULT (datetime('now')),
              UNIQUE (rcv_file_entity_id)
            );
            CREATE TABLE rcv_file_chunks (
              rcv_file_chunk_id INTEGER PRIMARY KEY,
              rcv_file_id INTEGER NOT NULL REFERENCES rcv_files ON DELETE CASCADE,
              chunk_no INTEGER NOT NULL,
              chunk_size INTEGER NOT NULL,
              digest BLOB NOT NULL,
              tmp_path TEXT,
              created_at TEXT NOT NULL DEFAULT (datetime('now'))
            );
            CREATE INDEX idx_rcv_file_chunks_rcv_file_id ON rcv_file_chunks(rcv_file_id);
            CREATE TABLE snd_files (
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
              created_at TEXT NOT NULL DEFAULT (datetime('now'))
            );
            CREATE TABLE snd_file_chunks (
              snd_file_chunk_id INTEGER PRIMARY KEY,
              snd_file_id INTEGER NOT NULL REFERENCES snd_files ON DELETE CASCADE,
              chunk_no INTEGER NOT NULL,
              chunk_offset INTEGER NOT NULL,
              chunk_size INTEGER NOT NULL,
              digest BLOB NOT NULL,
              created_at TEXT NOT NULL DEFAULT (datetime('now'))
            );
            CREATE INDEX idx_snd_file_chunks_snd_file_id ON snd_file_chunks(snd_file_id);
            """),
        Migration(name: "m20230401_snd_files_descr", up: """
            CREATE TABLE snd_file_chunk_replicas (
              snd_file_chunk_replica_id INTEGER PRIMARY KEY,
              snd_file_chunk_id INTEGER NOT NULL REFERENCES snd_file_chunks ON DELETE CASCADE,
              replica_number INTEGER NOT NULL,
              xftp_server_id INTEGER NOT NULL REFERENCES xftp_servers ON DELETE CASCADE,
              replica_id BLOB NOT NULL,
              replica_key BLOB NOT NULL,
              replica_status TEXT NOT NULL,
              created_at TEXT NOT NULL DEFAULT (datetime('now'))
            );
            CREATE INDEX idx_snd_file_chunk_replicas_chunk ON snd_file_chunk_replicas(snd_file_chunk_id);
            """, down: """
            DROP INDEX idx_snd_file_chunk_replicas_chunk;
            DROP TABLE snd_file_chunk_replicas;
            """),
        Migration(name: "m20240124_file_redirect", up: """
            ALTER TABLE rcv_files ADD COLUMN redirect_id INTEGER;
            ALTER TABLE rcv_files ADD COLUMN redirect_size INTEGER;
            ALTER TABLE snd_files ADD COLUMN redirect_size INTEGER;
            CREATE INDEX idx_rcv_files_redirect_id ON rcv_files(redirect_id);
            """, down: """
            DROP INDEX idx_rcv_files_redirect_id;
            ALTER TABLE rcv_files DROP COLUMN redirect_id;
            ALTER TABLE rcv_files DROP COLUMN redirect_size;
            ALTER TABLE snd_files DROP COLUMN redirect_size;
            """),
    ]
}
