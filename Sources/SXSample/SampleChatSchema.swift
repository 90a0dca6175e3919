/// sxkit's own DDL for the sample chat database: a subset of the tables of a real `…_chat.db` — the
/// ones sxkit reads or writes and every table their foreign keys name — each with the real columns in
/// the real order, types, NOT NULL / CHECK / DEFAULT / REFERENCES constraints and STRICT, as simplex-chat
/// `src/Simplex/Chat/Store/SQLite/Migrations/chat_schema.sql` declares them in the 6.5 stable build
/// (zhaikong/simplex-chat @d94cbb0, paired with simplexmq 92598c2; line numbers below are those of
/// upstream @00d600ba, whose tables differ from the stable ones only in the columns noted as left out).
/// Written from those facts, not copied: no SimpleX comments, no triggers, a selection of the indexes
/// (real names and columns). A real profile's schema grew by 152 migrations; this one is created at once.
enum SampleChatSchema {
    static let statements: [String] = tables + indexes

    static let tables: [String] = [
        // chat_schema.sql:1-5 (same in the agent DB); STRICT since 20251230_strict_tables.
        """
        CREATE TABLE migrations(name TEXT NOT NULL PRIMARY KEY, ts TEXT NOT NULL, down TEXT) STRICT
        """,
        // chat_schema.sql:6-32.
        """
        CREATE TABLE contact_profiles(
          contact_profile_id INTEGER PRIMARY KEY,
          display_name TEXT NOT NULL,
          full_name TEXT NOT NULL,
          properties TEXT NOT NULL DEFAULT '{}',
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          image TEXT,
          user_id INTEGER DEFAULT NULL REFERENCES users ON DELETE CASCADE,
          incognito INTEGER,
          local_alias TEXT DEFAULT '' CHECK(local_alias NOT NULL),
          preferences TEXT,
          contact_link BLOB,
          short_descr TEXT,
          chat_peer_type TEXT,
          badge_proof BLOB,
          badge_pres_header BLOB,
          badge_expiry TEXT,
          badge_type TEXT,
          badge_verified INTEGER,
          badge_extra TEXT,
          badge_master_key BLOB,
          badge_signature BLOB,
          badge_key_idx INTEGER
        ) STRICT
        """,
        // chat_schema.sql:33-58, without upstream's later client_service (20260530_client_services).
        """
        CREATE TABLE users(
          user_id INTEGER PRIMARY KEY,
          contact_id INTEGER NOT NULL UNIQUE REFERENCES contacts ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED,
          local_display_name TEXT NOT NULL UNIQUE,
          active_user INTEGER NOT NULL DEFAULT 0,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          agent_user_id INTEGER CHECK(agent_user_id NOT NULL),
          view_pwd_hash BLOB,
          view_pwd_salt BLOB,
          show_ntfs INTEGER NOT NULL DEFAULT 1,
          send_rcpts_contacts INTEGER NOT NULL DEFAULT 0,
          send_rcpts_small_groups INTEGER NOT NULL DEFAULT 0,
          user_member_profile_updated_at TEXT,
          ui_themes TEXT,
          active_order INTEGER NOT NULL DEFAULT 0,
          auto_accept_member_contacts INTEGER NOT NULL DEFAULT 0,
          is_user_chat_relay INTEGER NOT NULL DEFAULT 0,
          FOREIGN KEY(user_id, local_display_name) REFERENCES display_names(user_id, local_display_name)
            ON DELETE RESTRICT ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED
        ) STRICT
        """,
        // chat_schema.sql:59-68.
        """
        CREATE TABLE display_names(
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          local_display_name TEXT NOT NULL,
          ldn_base TEXT NOT NULL,
          ldn_suffix INTEGER NOT NULL DEFAULT 0,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          PRIMARY KEY(user_id, local_display_name) ON CONFLICT FAIL,
          UNIQUE(user_id, ldn_base, ldn_suffix) ON CONFLICT FAIL
        ) WITHOUT ROWID, STRICT
        """,
        // chat_schema.sql:69-110.
        """
        CREATE TABLE contacts(
          contact_id INTEGER PRIMARY KEY,
          contact_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          local_display_name TEXT NOT NULL,
          is_user INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT CHECK(updated_at NOT NULL),
          xcontact_id BLOB,
          enable_ntfs INTEGER,
          unread_chat INTEGER DEFAULT 0 CHECK(unread_chat NOT NULL),
          contact_used INTEGER DEFAULT 0 CHECK(contact_used NOT NULL),
          user_preferences TEXT DEFAULT '{}' CHECK(user_preferences NOT NULL),
          chat_ts TEXT,
          deleted INTEGER NOT NULL DEFAULT 0,
          favorite INTEGER NOT NULL DEFAULT 0,
          send_rcpts INTEGER,
          contact_group_member_id INTEGER REFERENCES group_members(group_member_id) ON DELETE SET NULL,
          contact_grp_inv_sent INTEGER NOT NULL DEFAULT 0,
          contact_status TEXT NOT NULL DEFAULT 'active',
          custom_data BLOB,
          ui_themes TEXT,
          chat_deleted INTEGER NOT NULL DEFAULT 0,
          chat_item_ttl INTEGER,
          conn_full_link_to_connect BLOB,
          conn_short_link_to_connect BLOB,
          welcome_shared_msg_id BLOB,
          request_shared_msg_id BLOB,
          contact_request_id INTEGER REFERENCES contact_requests ON DELETE SET NULL,
          grp_direct_inv_link BLOB,
          grp_direct_inv_from_group_id INTEGER REFERENCES groups(group_id) ON DELETE SET NULL,
          grp_direct_inv_from_group_member_id INTEGER REFERENCES group_members(group_member_id) ON DELETE SET NULL,
          grp_direct_inv_from_member_conn_id INTEGER REFERENCES connections(connection_id) ON DELETE SET NULL,
          grp_direct_inv_started_connection INTEGER NOT NULL DEFAULT 0,
          FOREIGN KEY(user_id, local_display_name) REFERENCES display_names(user_id, local_display_name)
            ON DELETE CASCADE ON UPDATE CASCADE,
          UNIQUE(user_id, local_display_name),
          UNIQUE(user_id, contact_profile_id)
        ) STRICT
        """,
        // chat_schema.sql:121-143.
        """
        CREATE TABLE group_profiles(
          group_profile_id INTEGER PRIMARY KEY,
          display_name TEXT NOT NULL,
          full_name TEXT NOT NULL,
          properties TEXT NOT NULL DEFAULT '{}',
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          image TEXT,
          user_id INTEGER DEFAULT NULL REFERENCES users ON DELETE CASCADE,
          preferences TEXT,
          description TEXT NULL,
          member_admission TEXT,
          short_descr TEXT,
          group_type TEXT,
          group_link BLOB,
          public_group_id BLOB,
          group_web_page TEXT,
          group_domain TEXT,
          domain_web_page INTEGER,
          allow_embedding INTEGER
        ) STRICT
        """,
        // chat_schema.sql:144-208, without upstream's later roster_* columns (20260601/20260602_group_roster).
        """
        CREATE TABLE groups(
          group_id INTEGER PRIMARY KEY,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          local_display_name TEXT NOT NULL,
          group_profile_id INTEGER REFERENCES group_profiles ON DELETE SET NULL,
          inv_queue_info BLOB,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          chat_item_id INTEGER DEFAULT NULL REFERENCES chat_items ON DELETE SET NULL,
          enable_ntfs INTEGER,
          unread_chat INTEGER DEFAULT 0 CHECK(unread_chat NOT NULL),
          chat_ts TEXT,
          favorite INTEGER NOT NULL DEFAULT 0,
          send_rcpts INTEGER,
          via_group_link_uri_hash BLOB,
          user_member_profile_sent_at TEXT,
          custom_data BLOB,
          ui_themes TEXT,
          business_member_id BLOB NULL,
          business_chat TEXT NULL,
          business_xcontact_id BLOB NULL,
          customer_member_id BLOB NULL,
          chat_item_ttl INTEGER,
          local_alias TEXT DEFAULT '',
          members_require_attention INTEGER NOT NULL DEFAULT 0,
          conn_full_link_to_connect BLOB,
          conn_short_link_to_connect BLOB,
          conn_link_started_connection INTEGER NOT NULL DEFAULT 0,
          welcome_shared_msg_id BLOB,
          request_shared_msg_id BLOB,
          conn_link_prepared_connection INTEGER NOT NULL DEFAULT 0,
          via_group_link_uri BLOB,
          summary_current_members_count INTEGER NOT NULL DEFAULT 0,
          member_index INTEGER NOT NULL DEFAULT 0,
          use_relays INTEGER NOT NULL DEFAULT 0,
          creating_in_progress INTEGER NOT NULL DEFAULT 0,
          relay_own_status TEXT,
          relay_request_inv_id BLOB,
          relay_request_group_link BLOB,
          relay_request_peer_chat_min_version INTEGER,
          relay_request_peer_chat_max_version INTEGER,
          relay_request_failed INTEGER DEFAULT 0,
          relay_request_err_reason TEXT,
          root_priv_key BLOB,
          root_pub_key BLOB,
          member_priv_key BLOB,
          public_member_count INTEGER,
          relay_request_retries INTEGER NOT NULL DEFAULT 0,
          relay_request_delay INTEGER NOT NULL DEFAULT 0,
          relay_request_execute_at TEXT NOT NULL DEFAULT '1970-01-01 00:00:00',
          relay_inactive_at TEXT,
          FOREIGN KEY(user_id, local_display_name) REFERENCES display_names(user_id, local_display_name)
            ON DELETE CASCADE ON UPDATE CASCADE,
          UNIQUE(user_id, local_display_name),
          UNIQUE(user_id, group_profile_id)
        ) STRICT
        """,
        // chat_schema.sql:209-251, without upstream's later removed_at (20260531_member_removed_at).
        """
        CREATE TABLE group_members(
          group_member_id INTEGER PRIMARY KEY,
          group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
          member_id BLOB NOT NULL,
          member_role TEXT NOT NULL,
          member_category TEXT NOT NULL,
          member_status TEXT NOT NULL,
          invited_by INTEGER REFERENCES contacts(contact_id) ON DELETE SET NULL,
          sent_inv_queue_info BLOB,
          group_queue_info BLOB,
          direct_queue_info BLOB,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          local_display_name TEXT NOT NULL,
          contact_profile_id INTEGER NOT NULL REFERENCES contact_profiles ON DELETE CASCADE,
          contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          member_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
          show_messages INTEGER NOT NULL DEFAULT 1,
          xgrplinkmem_received INTEGER NOT NULL DEFAULT 0,
          invited_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          peer_chat_min_version INTEGER NOT NULL DEFAULT 1,
          peer_chat_max_version INTEGER NOT NULL DEFAULT 1,
          member_restriction TEXT,
          support_chat_ts TEXT,
          support_chat_items_unread INTEGER NOT NULL DEFAULT 0,
          support_chat_items_member_attention INTEGER NOT NULL DEFAULT 0,
          support_chat_items_mentions INTEGER NOT NULL DEFAULT 0,
          support_chat_last_msg_from_member_ts TEXT,
          member_xcontact_id BLOB,
          member_welcome_shared_msg_id BLOB,
          index_in_group INTEGER NOT NULL DEFAULT 0,
          member_relations_vector BLOB,
          relay_link BLOB,
          member_pub_key BLOB,
          FOREIGN KEY(user_id, local_display_name) REFERENCES display_names(user_id, local_display_name)
            ON DELETE CASCADE ON UPDATE CASCADE,
          UNIQUE(group_id, member_id)
        ) STRICT
        """,
        // chat_schema.sql:264-291, without upstream's later shared_msg_id, file_type, roster_transfer_id.
        """
        CREATE TABLE files(
          file_id INTEGER PRIMARY KEY,
          contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
          group_id INTEGER REFERENCES groups ON DELETE CASCADE,
          file_name TEXT NOT NULL,
          file_path TEXT,
          file_size INTEGER NOT NULL,
          chunk_size INTEGER NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          chat_item_id INTEGER DEFAULT NULL REFERENCES chat_items ON DELETE CASCADE,
          updated_at TEXT CHECK(updated_at NOT NULL),
          cancelled INTEGER,
          ci_file_status TEXT,
          file_inline TEXT,
          agent_snd_file_id BLOB NULL,
          private_snd_file_descr TEXT NULL,
          agent_snd_file_deleted INTEGER DEFAULT 0 CHECK(agent_snd_file_deleted NOT NULL),
          protocol TEXT NOT NULL DEFAULT 'smp',
          file_crypto_key BLOB,
          file_crypto_nonce BLOB,
          note_folder_id INTEGER DEFAULT NULL REFERENCES note_folders ON DELETE CASCADE,
          redirect_file_id INTEGER REFERENCES files ON DELETE CASCADE
        ) STRICT
        """,
        // chat_schema.sql:292-304.
        """
        CREATE TABLE snd_files(
          file_id INTEGER NOT NULL REFERENCES files ON DELETE CASCADE,
          connection_id INTEGER NOT NULL REFERENCES connections ON DELETE CASCADE,
          file_status TEXT NOT NULL,
          group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          file_inline TEXT,
          last_inline_msg_delivery_id INTEGER,
          file_descr_id INTEGER NULL REFERENCES xftp_file_descriptions ON DELETE SET NULL,
          PRIMARY KEY(file_id, connection_id)
        ) WITHOUT ROWID, STRICT
        """,
        // chat_schema.sql:305-321.
        """
        CREATE TABLE rcv_files(
          file_id INTEGER PRIMARY KEY REFERENCES files ON DELETE CASCADE,
          file_status TEXT NOT NULL,
          group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
          file_queue_info BLOB,
          created_at TEXT CHECK(created_at NOT NULL),
          updated_at TEXT CHECK(updated_at NOT NULL),
          rcv_file_inline TEXT,
          file_inline TEXT,
          file_descr_id INTEGER NULL REFERENCES xftp_file_descriptions ON DELETE SET NULL,
          agent_rcv_file_id BLOB NULL,
          agent_rcv_file_deleted INTEGER DEFAULT 0 CHECK(agent_rcv_file_deleted NOT NULL),
          to_receive INTEGER,
          user_approved_relays INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """,
        // chat_schema.sql:331-377.
        """
        CREATE TABLE connections(
          connection_id INTEGER PRIMARY KEY,
          agent_conn_id BLOB NOT NULL UNIQUE,
          conn_level INTEGER NOT NULL DEFAULT 0,
          via_contact INTEGER REFERENCES contacts(contact_id) ON DELETE SET NULL,
          conn_status TEXT NOT NULL,
          conn_type TEXT NOT NULL,
          user_contact_link_id INTEGER REFERENCES user_contact_links ON DELETE CASCADE,
          contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
          group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
          snd_file_id INTEGER,
          rcv_file_id INTEGER REFERENCES rcv_files(file_id) ON DELETE CASCADE,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          updated_at TEXT CHECK(updated_at NOT NULL),
          via_contact_uri_hash BLOB,
          xcontact_id BLOB,
          via_user_contact_link INTEGER DEFAULT NULL REFERENCES user_contact_links(user_contact_link_id) ON DELETE SET NULL,
          custom_user_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
          conn_req_inv BLOB,
          local_alias TEXT DEFAULT '' CHECK(local_alias NOT NULL),
          via_group_link INTEGER DEFAULT 0 CHECK(via_group_link NOT NULL),
          group_link_id BLOB,
          security_code TEXT NULL,
          security_code_verified_at TEXT NULL,
          auth_err_counter INTEGER DEFAULT 0 CHECK(auth_err_counter NOT NULL),
          peer_chat_min_version INTEGER NOT NULL DEFAULT 1,
          peer_chat_max_version INTEGER NOT NULL DEFAULT 1,
          to_subscribe INTEGER DEFAULT 0 NOT NULL,
          contact_conn_initiated INTEGER NOT NULL DEFAULT 0,
          conn_chat_version INTEGER,
          pq_support INTEGER NOT NULL DEFAULT 0,
          pq_encryption INTEGER NOT NULL DEFAULT 0,
          pq_snd_enabled INTEGER,
          pq_rcv_enabled INTEGER,
          quota_err_counter INTEGER NOT NULL DEFAULT 0,
          short_link_inv BLOB,
          via_short_link_contact BLOB,
          via_contact_uri BLOB,
          relay_test INTEGER NOT NULL DEFAULT 0,
          FOREIGN KEY(snd_file_id, connection_id) REFERENCES snd_files(file_id, connection_id)
            ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
        ) STRICT
        """,
        // chat_schema.sql:378-396.
        """
        CREATE TABLE user_contact_links(
          user_contact_link_id INTEGER PRIMARY KEY,
          conn_req_contact BLOB NOT NULL,
          local_display_name TEXT NOT NULL DEFAULT '',
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          updated_at TEXT CHECK(updated_at NOT NULL),
          auto_accept INTEGER DEFAULT 0,
          auto_reply_msg_content TEXT DEFAULT NULL,
          group_id INTEGER REFERENCES groups ON DELETE CASCADE,
          auto_accept_incognito INTEGER DEFAULT 0 CHECK(auto_accept_incognito NOT NULL),
          group_link_id BLOB,
          group_link_member_role TEXT NULL,
          business_address INTEGER DEFAULT 0,
          short_link_contact BLOB,
          short_link_data_set INTEGER NOT NULL DEFAULT 0,
          short_link_large_data_set INTEGER NOT NULL DEFAULT 0,
          UNIQUE(user_id, local_display_name)
        ) STRICT
        """,
        // chat_schema.sql:397-424.
        """
        CREATE TABLE contact_requests(
          contact_request_id INTEGER PRIMARY KEY,
          user_contact_link_id INTEGER REFERENCES user_contact_links ON UPDATE CASCADE ON DELETE SET NULL,
          agent_invitation_id BLOB NOT NULL,
          contact_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
          local_display_name TEXT NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          updated_at TEXT CHECK(updated_at NOT NULL),
          xcontact_id BLOB,
          peer_chat_min_version INTEGER NOT NULL DEFAULT 1,
          peer_chat_max_version INTEGER NOT NULL DEFAULT 1,
          pq_support INTEGER NOT NULL DEFAULT 0,
          contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
          business_group_id INTEGER REFERENCES groups(group_id) ON DELETE CASCADE,
          welcome_shared_msg_id BLOB,
          request_shared_msg_id BLOB,
          FOREIGN KEY(user_id, local_display_name) REFERENCES display_names(user_id, local_display_name)
            ON UPDATE CASCADE ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
          UNIQUE(user_id, local_display_name),
          UNIQUE(user_id, contact_profile_id)
        ) STRICT
        """,
        // chat_schema.sql:425-442.
        """
        CREATE TABLE messages(
          message_id INTEGER PRIMARY KEY,
          msg_sent INTEGER NOT NULL,
          chat_msg_event TEXT NOT NULL,
          msg_body BLOB,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT CHECK(updated_at NOT NULL),
          connection_id INTEGER DEFAULT NULL REFERENCES connections ON DELETE CASCADE,
          group_id INTEGER DEFAULT NULL REFERENCES groups ON DELETE CASCADE,
          shared_msg_id BLOB,
          shared_msg_id_user INTEGER,
          author_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          forwarded_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          broker_ts TEXT,
          msg_chat_binding TEXT,
          msg_signatures BLOB
        ) STRICT
        """,
        // chat_schema.sql:450-498.
        """
        CREATE TABLE chat_items(
          chat_item_id INTEGER PRIMARY KEY AUTOINCREMENT,
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
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          item_status TEXT CHECK(item_status NOT NULL),
          shared_msg_id BLOB,
          quoted_shared_msg_id BLOB,
          quoted_sent_at TEXT,
          quoted_content TEXT,
          quoted_sent INTEGER,
          quoted_member_id BLOB,
          item_edited INTEGER,
          timed_ttl INTEGER,
          timed_delete_at TEXT,
          item_live INTEGER,
          item_deleted_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          item_deleted_ts TEXT,
          forwarded_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          item_content_tag TEXT,
          note_folder_id INTEGER DEFAULT NULL REFERENCES note_folders ON DELETE CASCADE,
          fwd_from_tag TEXT,
          fwd_from_chat_name TEXT,
          fwd_from_msg_dir INTEGER,
          fwd_from_contact_id INTEGER REFERENCES contacts ON DELETE SET NULL,
          fwd_from_group_id INTEGER REFERENCES groups ON DELETE SET NULL,
          fwd_from_chat_item_id INTEGER REFERENCES chat_items ON DELETE SET NULL,
          via_proxy INTEGER,
          msg_content_tag TEXT,
          include_in_history INTEGER NOT NULL DEFAULT 0,
          user_mention INTEGER NOT NULL DEFAULT 0,
          group_scope_tag TEXT,
          group_scope_group_member_id INTEGER REFERENCES group_members(group_member_id) ON DELETE CASCADE,
          show_group_as_sender INTEGER NOT NULL DEFAULT 0,
          has_link INTEGER NOT NULL DEFAULT 0,
          msg_signed TEXT,
          item_viewed INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """,
        // chat_schema.sql:500-506.
        """
        CREATE TABLE chat_item_messages(
          chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
          message_id INTEGER NOT NULL UNIQUE REFERENCES messages ON DELETE CASCADE,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          UNIQUE(chat_item_id, message_id)
        ) STRICT
        """,
        // chat_schema.sql:569-577: edit history (only edited items have versions, the current one included).
        """
        CREATE TABLE chat_item_versions(
          chat_item_version_id INTEGER PRIMARY KEY AUTOINCREMENT,
          chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
          msg_content TEXT NOT NULL,
          item_version_ts TEXT NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // chat_schema.sql:578-591.
        """
        CREATE TABLE chat_item_reactions(
          chat_item_reaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
          item_member_id BLOB,
          shared_msg_id BLOB NOT NULL,
          contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
          group_id INTEGER REFERENCES groups ON DELETE CASCADE,
          group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
          created_by_msg_id INTEGER REFERENCES messages(message_id) ON DELETE SET NULL,
          reaction TEXT NOT NULL,
          reaction_sent INTEGER NOT NULL,
          reaction_ts TEXT NOT NULL,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // chat_schema.sql:552-560.
        """
        CREATE TABLE xftp_file_descriptions(
          file_descr_id INTEGER PRIMARY KEY AUTOINCREMENT,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          file_descr_text TEXT NOT NULL,
          file_descr_part_no INTEGER NOT NULL DEFAULT(0),
          file_descr_complete INTEGER NOT NULL DEFAULT(0),
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now'))
        ) STRICT
        """,
        // chat_schema.sql:679-687.
        """
        CREATE TABLE note_folders(
          note_folder_id INTEGER PRIMARY KEY AUTOINCREMENT,
          user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
          created_at TEXT NOT NULL DEFAULT(datetime('now')),
          updated_at TEXT NOT NULL DEFAULT(datetime('now')),
          chat_ts TEXT NOT NULL DEFAULT(datetime('now')),
          favorite INTEGER NOT NULL DEFAULT 0,
          unread_chat INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """,
    ]

    /// Real index names and columns (chat_schema.sql lines given), a selection per table.
    static let indexes: [String] = [
        "CREATE INDEX contact_profiles_index ON contact_profiles(display_name, full_name)", // 824-827
        "CREATE INDEX idx_contact_profiles_user_id ON contact_profiles(user_id)", // 872
        "CREATE INDEX idx_contacts_contact_profile_id ON contacts(contact_profile_id)", // 879
        "CREATE INDEX idx_contacts_chat_ts ON contacts(user_id, chat_ts)", // 1047
        "CREATE INDEX idx_groups_group_profile_id ON groups(group_profile_id)", // 902
        "CREATE INDEX idx_groups_chat_ts ON groups(user_id, chat_ts)", // 1048
        "CREATE INDEX idx_group_members_contact_id ON group_members(contact_id)", // 894
        "CREATE INDEX idx_group_members_group_id ON group_members(user_id, group_id)", // 960
        "CREATE UNIQUE INDEX idx_group_members_group_id_index_in_group ON group_members(group_id, index_in_group)", // 1281-1284
        "CREATE INDEX idx_files_chat_item_id ON files(chat_item_id)", // 880
        "CREATE INDEX idx_files_user_id ON files(user_id)", // 881
        "CREATE INDEX idx_files_group_id ON files(group_id)", // 882
        "CREATE INDEX idx_files_contact_id ON files(contact_id)", // 883
        "CREATE INDEX files_note_folder_id ON files(note_folder_id)", // 1060
        "CREATE INDEX idx_files_redirect_file_id ON files(redirect_file_id)", // 1072
        "CREATE UNIQUE INDEX idx_connections_contact_id ON connections(contact_id)", // 1273
        "CREATE UNIQUE INDEX idx_connections_group_member_id ON connections(group_member_id)", // 1274-1276
        "CREATE INDEX idx_connections_updated_at ON connections(user_id, updated_at)", // 1053
        "CREATE INDEX idx_messages_shared_msg_id ON messages(shared_msg_id)", // 830
        "CREATE INDEX idx_messages_connection_id ON messages(connection_id)", // 848
        "CREATE INDEX idx_messages_group_id ON messages(group_id)", // 903
        "CREATE INDEX idx_messages_created_at ON messages(created_at)", // 952
        "CREATE UNIQUE INDEX idx_chat_items_direct_shared_msg_id ON chat_items(user_id, contact_id, shared_msg_id)", // 831-835
        "CREATE UNIQUE INDEX idx_chat_items_group_shared_msg_id ON chat_items(user_id, group_id, group_member_id, shared_msg_id)", // 836-841
        "CREATE INDEX idx_chat_items_contact_id ON chat_items(contact_id)", // 850
        "CREATE INDEX idx_chat_items_group_id ON chat_items(group_id)", // 1176
        "CREATE INDEX idx_chat_items_contacts ON chat_items(user_id, contact_id, item_status, created_at)", // 1091-1096
        "CREATE INDEX idx_chat_items_groups ON chat_items(user_id, group_id, item_status, item_ts)", // 1097-1102
        // The indexes the apps read a chat's items through, in order (`Store/Messages.hs`, see
        // `ChatHistoryReader`): migrations M20240122_indexes, M20241125_indexes, M20250310_group_scope.
        "CREATE INDEX idx_chat_items_contacts_created_at ON chat_items(user_id, contact_id, created_at)",
        "CREATE INDEX idx_chat_items_notes_created_at ON chat_items(user_id, note_folder_id, created_at)",
        "CREATE INDEX idx_chat_items_groups_item_ts ON chat_items(user_id, group_id, item_ts)",
        "CREATE INDEX idx_chat_items_group_scope_item_ts ON chat_items(user_id, group_id, group_scope_tag, group_scope_group_member_id, item_ts)",
        "CREATE INDEX note_folders_user_id ON note_folders(user_id)", // 1061
        "CREATE INDEX idx_chat_item_versions_chat_item_id ON chat_item_versions(chat_item_id)",
        "CREATE INDEX idx_chat_item_reactions_contact ON chat_item_reactions(contact_id, shared_msg_id)",
        "CREATE INDEX idx_chat_item_reactions_group ON chat_item_reactions(group_id, shared_msg_id)", // these three: the index section of chat_schema.sql, same names
    ]
}
