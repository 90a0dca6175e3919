/// The chat database schema as a faithful subset of the app's own migrations: the tables sxkit reads
/// (users, contacts, groups, chat_items, messages, files with every column of FORMATS §2) and enough
/// of their neighbours for realistic data. The recent steps carry down SQL, like the app's.
public enum ChatSchema {
    public static let migrations: [Migration] = [
        Migration(name: "20220101_initial", up: """
            CREATE TABLE users (
              user_id INTEGER PRIMARY KEY,
              contact_id INTEGER,
              local_display_name TEXT NOT NULL UNIQUE,
              active_user INTEGER NOT NULL DEFAULT 0,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE TABLE contact_profiles (
              contact_profile_id INTEGER PRIMARY KEY,
              display_name TEXT NOT NULL,
              full_name TEXT NOT NULL DEFAULT '',
              image TEXT,
              user_id INTEGER REFERENCES users ON DELETE CASCADE,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE TABLE contacts (
              contact_id INTEGER PRIMARY KEY,
              contact_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              local_display_name TEXT NOT NULL,
              is_user INTEGER NOT NULL DEFAULT 0,
              via_group INTEGER,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
              updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE INDEX idx_contacts_user_id ON contacts(user_id);
            CREATE TABLE group_profiles (
              group_profile_id INTEGER PRIMARY KEY,
              display_name TEXT NOT NULL,
              full_name TEXT NOT NULL DEFAULT '',
              image TEXT,
              user_id INTEGER REFERENCES users ON DELETE CASCADE
            );
            CREATE TABLE groups (
              group_id INTEGER PRIMARY KEY,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              local_display_name TEXT NOT NULL,
              group_profile_id INTEGER REFERENCES group_profiles ON DELETE SET NULL,
              inv_queue_info BLOB,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
              updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE TABLE group_members (
              group_member_id INTEGER PRIMARY KEY,
              group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
              member_id BLOB NOT NULL,
              member_role TEXT NOT NULL,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE INDEX idx_group_members_group_id ON group_members(group_id);
            CREATE TABLE messages (
              message_id INTEGER PRIMARY KEY,
              msg_sent INTEGER NOT NULL,
              chat_msg_event TEXT NOT NULL,
              msg_body BLOB,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE TABLE files (
              file_id INTEGER PRIMARY KEY,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              group_id INTEGER REFERENCES groups ON DELETE CASCADE,
              file_name TEXT NOT NULL,
              file_path TEXT,
              file_size INTEGER NOT NULL,
              chunk_size INTEGER NOT NULL,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE
            );
            """),
        Migration(name: "20220122_v1_1", up: """
            CREATE TABLE chat_items (
              chat_item_id INTEGER PRIMARY KEY,
              user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
              contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
              group_id INTEGER REFERENCES groups ON DELETE CASCADE,
              group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
              chat_msg_id INTEGER,
              created_by_msg_id INTEGER UNIQUE REFERENCES messages(message_id) ON DELETE SET NULL,
              item_sent INTEGER NOT NULL,
              item_ts TEXT NOT NULL,
              item_deleted INTEGER NOT NULL DEFAULT 0,
              item_content TEXT NOT NULL,
              item_text TEXT NOT NULL,
              created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
              updated_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            CREATE TABLE chat_item_messages (
              chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
              message_id INTEGER NOT NULL UNIQUE REFERENCES messages ON DELETE CASCADE,
              UNIQUE (chat_item_id, message_id)
            );
            ALTER TABLE files ADD COLUMN chat_item_id INTEGER DEFAULT NULL REFERENCES chat_items ON DELETE CASCADE;
            """),
        Migration(name: "20220205_chat_item_status", up: """
            ALTER TABLE chat_items ADD COLUMN item_status TEXT CHECK (item_status NOT NULL);
            UPDATE chat_items SET item_status = 'snd_sent' WHERE item_sent = 1;
            UPDATE chat_items SET item_status = 'rcv_read' WHERE item_sent = 0;
            """),
        Migration(name: "20220404_files_status_fields", up: """
            ALTER TABLE files ADD COLUMN ci_file_status TEXT;
            """),
        Migration(name: "20231002_file_crypto", up: """
            ALTER TABLE files ADD COLUMN file_crypto_key BLOB;
            ALTER TABLE files ADD COLUMN file_crypto_nonce BLOB;
            """, down: """
            ALTER TABLE files DROP COLUMN file_crypto_key;
            ALTER TABLE files DROP COLUMN file_crypto_nonce;
            """),
        Migration(name: "20240122_indexes", up: """
            CREATE INDEX idx_chat_items_contacts ON chat_items(user_id, contact_id, chat_item_id);
            CREATE INDEX idx_chat_items_groups ON chat_items(user_id, group_id, chat_item_id);
            CREATE INDEX idx_files_chat_item_id ON files(chat_item_id);
            CREATE INDEX idx_messages_created_at ON messages(created_at);
            """, down: """
            DROP INDEX idx_chat_items_contacts;
            DROP INDEX idx_chat_items_groups;
            DROP INDEX idx_files_chat_item_id;
            DROP INDEX idx_messages_created_at;
            """),
        Migration(name: "20240510_chat_item_ttl", up: """
            ALTER TABLE contacts ADD COLUMN chat_item_ttl INTEGER;
            ALTER TABLE groups ADD COLUMN chat_item_ttl INTEGER;
            """, down: """
            ALTER TABLE contacts DROP COLUMN chat_item_ttl;
            ALTER TABLE groups DROP COLUMN chat_item_ttl;
            """),
    ]
}
