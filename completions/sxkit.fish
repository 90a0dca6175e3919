function __sxkit_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __sxkit_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __sxkit_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __sxkit_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __sxkit_parse_tokens -S
    set -l unparsed_tokens (__sxkit_tokens -pc)
    switch $unparsed_tokens[1]
    case 'sxkit'
        __sxkit_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'db'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'inspect'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'deep' 'h/help'
            case 'test-key'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'rekey'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'new-passphrase-file=' 'new-passphrase-command=' 'decrypt' 'keep-backup' 'desktop-settings=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'recover'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'status'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'role=' 'migrations=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'migrate'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'db=' 'role=' 'migrations=' 'confirm=' 'backup-path=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'archive'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'export'
                __sxkit_parse_subcommand 1 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'no-compression' 'force' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'import'
                __sxkit_parse_subcommand 1 'force' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'list'
                __sxkit_parse_subcommand 1 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'verify'
                __sxkit_parse_subcommand 1 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'recover'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'files'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'encrypt'
                __sxkit_parse_subcommand -r 1 'o/output=' 'in-place' 'force' 'manifest=' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'decrypt'
                __sxkit_parse_subcommand -r 1 'manifest=' 'args-file=' 'o/output=' 'in-place' 'force' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'cat'
                __sxkit_parse_subcommand 1 'manifest=' 'args-file=' 'h/help'
            case 'verify'
                __sxkit_parse_subcommand -r 1 'manifest=' 'args-file=' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'image'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'compress'
                __sxkit_parse_subcommand -r 1 'o/output=' 'max-size=' 'format=' 'keep-metadata' 'data-uri' 'max-pixels=' 'force' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'transfer'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'plan'
                __sxkit_parse_subcommand -r 1 'above-soft-limit' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'send'
                __sxkit_parse_subcommand 1 'server=+' 'relay=' 'socks-proxy=' 'recipients=' 'force' 'link=+' 'above-soft-limit' 'o/output=' 'parallel=' 'retry=' 'temp-dir=' 'data-dir=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'receive'
                __sxkit_parse_subcommand 1 'o/output=' 'force' 'relay=' 'socks-proxy=' 'parallel=' 'retry=' 'temp-dir=' 'data-dir=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'info'
                __sxkit_parse_subcommand 1 'link=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'cancel'
                __sxkit_parse_subcommand 1 'relay=' 'socks-proxy=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'relay'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'serve'
                __sxkit_parse_subcommand 0 'listen=' 'store=' 'public-host=' 'password-file=' 'web-root=' 'web-certificate=' 'web-key=' 'expiry=' 'max-store=' 'certificate-algorithm=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'migrate'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'send'
                __sxkit_parse_subcommand 0 'server=+' 'relay=' 'socks-proxy=' 'o/output=' 'qr' 'allow-unencrypted' 'fresh' 'above-soft-limit' 'parallel=' 'retry=' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'receive'
                __sxkit_parse_subcommand 1 'relay=' 'socks-proxy=' 'direct' 'force' 'parallel=' 'retry=' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'storage'
            __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
        case 'clean'
            __sxkit_parse_subcommand 0 'temp' 'older-than=' 'orphans' 'leftovers' 'all-files' 'everything' 'dry-run' 'yes' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
        case 'check'
            __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'deep' 'read-data' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
        case 'chats'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __sxkit_parse_subcommand 0 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'export'
                __sxkit_parse_subcommand -r 1 'o/output=' 'user=' 'since=' 'until=' 'format=+' 'utc' 'force' 'no-media' 'data-dir=' 'files-dir=' 'temp-dir=' 'assets-dir=' 'passphrase-file=' 'passphrase-command=' 'desktop-passphrase' 'no-passphrase' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'demo'
            __sxkit_parse_subcommand 0 'dir=' 'seed=' 'sample-only' 'chat-db-size=' 'chat-items=' 'bulk-files=' 'h/help'
        case 'help'
            __sxkit_parse_subcommand -r 1 
        end
    end
end

function __sxkit_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __sxkit_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __sxkit_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __sxkit_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__sxkit_tokens -p)
    if test -z "$(__sxkit_tokens -t)"
        set -l index (count (__sxkit_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'sxkit' -f
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit" version' -l 'version' -d 'Show sxkit\'s version and the versions of the libraries it loaded.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'db' -d 'Inspect the chat and agent databases, test or change their passphrase, and run migrations.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'archive' -d 'Export, import, list and verify chat archives (ZIP).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'files' -d 'Encrypt and decrypt CryptoFiles (SimpleX local file encryption), one or many.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'image' -d 'Compress images to SimpleX\'s inline limit, in bulk.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'transfer' -d 'Send and receive files as chunked, encrypted relay transfers (SimpleX\'s relay file format).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'relay' -d 'Run an XFTP server: SimpleX\'s file relay, which holds encrypted transfer chunks.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'migrate' -d 'Move a whole SimpleX profile (data directory) to another machine through a relay.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'storage' -d 'Report where a data directory\'s space goes and what each clean-up would reclaim.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'clean' -d 'Remove temp files, orphaned files, leftovers, every file, or everything from a data directory.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'check' -d 'Say whether a profile is whole: databases, referenced files, CryptoFile tags, orphans, leftovers.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'chats' -d 'Read the conversations of a data directory\'s chat database (read-only).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'demo' -d 'Build a sample SimpleX data directory and walk through what sxkit can do with it.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'inspect' -d 'Report everything about the chat and agent databases without changing a byte.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'test-key' -d 'Test a passphrase on the chat and agent databases without changing anything.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'rekey' -d 'Set, change or remove the passphrase of the chat and agent databases.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'recover' -d 'Finish or roll back an interrupted passphrase change.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'status' -d 'Say which of SimpleX\'s migrations each database has, and what migrate would do.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit db" -eq 1' -fa 'migrate' -d 'Revert migrations newer than SimpleX\'s list with the database\'s own down SQL, or apply pending ones given their SQL.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" deep' -l 'deep' -d 'Also run integrity_check and cipher_integrity_check (reads every page). With --quiet only the findings are printed.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db inspect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db test-key" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" new-passphrase-file' -l 'new-passphrase-file' -d 'Read the new passphrase from this file (one trailing newline is ignored).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" new-passphrase-command' -l 'new-passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the new passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" decrypt' -l 'decrypt' -d 'Remove the encryption: the databases become plaintext SQLite.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" keep-backup' -l 'keep-backup' -d 'Keep each <db>.bak; it still opens with the OLD passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" desktop-settings' -l 'desktop-settings' -d 'The desktop app\'s settings.properties to keep in step (default: the one of the app whose data directory this is; none with --db).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db rekey" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db recover" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" role' -l 'role' -d 'With --db: which database it is, and so which of SimpleX\'s lists applies (default: from a …_chat.db / …_agent.db name).' -rfka 'chat agent'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" migrations' -l 'migrations' -d 'SQL for migrations, as NAME.up.sql and optional NAME.down.sql: a NAME of SimpleX\'s list gives that migration the SQL sxkit does not carry, any other NAME is added to the list by name. With a data directory it holds chat/ and/or agent/ subfolders. For a --db file that is neither chat nor agent, the folder is the whole list.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" db' -l 'db' -d 'Work on this one database file instead of a data directory\'s chat and agent databases.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" role' -l 'role' -d 'With --db: which database it is, and so which of SimpleX\'s lists applies (default: from a …_chat.db / …_agent.db name).' -rfka 'chat agent'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" migrations' -l 'migrations' -d 'SQL for migrations, as NAME.up.sql and optional NAME.down.sql: a NAME of SimpleX\'s list gives that migration the SQL sxkit does not carry, any other NAME is added to the list by name. With a data directory it holds chat/ and/or agent/ subfolders. For a --db file that is neither chat nor agent, the folder is the whole list.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" confirm' -l 'confirm' -d 'yesUp: apply up migrations; yesUpDown: also revert; error: run nothing that needs confirming; console: ask (y/N). Default: console when stdin and stderr are a terminal, else error.' -rfka 'yesUp yesUpDown error console'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" backup-path' -l 'backup-path' -d 'Where the copy made before changing a database goes (default: <db>.migration-backup beside it). With a data directory: an existing folder that receives <name>.migration-backup for each database.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit db migrate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive" -eq 1' -fa 'export' -d 'Write a chat archive (ZIP) of a data directory: both databases, files and wallpapers.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive" -eq 1' -fa 'import' -d 'Import a chat archive into a data directory.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive" -eq 1' -fa 'list' -d 'List the entries of a ZIP archive: name, sizes, method, CRC-32 and time.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive" -eq 1' -fa 'verify' -d 'Check a chat archive: structure, every entry\'s CRC, and the two databases.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive" -eq 1' -fa 'recover' -d 'Finish or roll back an interrupted archive import.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive export" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" no-compression' -l 'no-compression' -d 'Store every entry without compression.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" force' -l 'force' -d 'Replace OUT if it exists (atomically: the old archive stays until the new one is complete).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive import" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" force' -l 'force' -d 'Import over a profile already in the data directory (its databases are kept as .bak).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive list" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive list" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive list" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive list" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit archive verify" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit archive recover" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'encrypt' -d 'Encrypt files and folders (recursively) as CryptoFiles, recording each key in a manifest.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'decrypt' -d 'Decrypt CryptoFiles listed in a manifest, or one file with --args-file.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'cat' -d 'Write a CryptoFile\'s plaintext to stdout, after checking its tag.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'verify' -d 'Check CryptoFile tags without writing anything.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files encrypt" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" o output' -s 'o' -l 'output' -d 'Write results below this folder, keeping the inputs.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" in-place' -l 'in-place' -d 'Replace each file (crash-safe: a killed run is finished by the next one).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" force' -l 'force' -d 'Replace files already under -o DIR (each atomically); without it they are refused before any work.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" manifest' -l 'manifest' -d 'The manifest that receives the keys (created 0600, merged if present).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files decrypt" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" o output' -s 'o' -l 'output' -d 'Write results below this folder, keeping the inputs.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" in-place' -l 'in-place' -d 'Replace each file (crash-safe: a killed run is finished by the next one).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" force' -l 'force' -d 'Replace files already under -o DIR (each atomically); without it they are refused before any work.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files cat" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files verify" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit image" -eq 1' -fa 'compress' -d 'Compress images so each fits the inline limit (255 KiB), with the best quality that fits.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit image compress" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" o output' -s 'o' -l 'output' -d 'Folder for the results, or - for stdout (one input only).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" max-size' -l 'max-size' -d 'Budget per image (e.g. 255KiB, 20KiB).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" format' -l 'format' -d 'Output format: auto (JPEG, or PNG for transparency), jpeg or png.' -rfka 'auto jpeg png'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" keep-metadata' -l 'keep-metadata' -d 'Keep EXIF, XMP and ICC metadata (the budget still applies).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" data-uri' -l 'data-uri' -d 'Write a data:image/…;base64 string; the budget applies to the whole string.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" max-pixels' -l 'max-pixels' -d 'Refuse images whose header declares more pixels than this.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" force' -l 'force' -d 'Replace results already in the output folder (inputs are never replaced).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit image compress" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer" -eq 1' -fa 'plan' -d 'Say how each file would be sent (inline, relay or refused) and whether it would be received without asking.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer" -eq 1' -fa 'send' -d 'Encrypt a file, upload its chunks to XFTP servers (or a folder relay) and write the sender and recipient descriptions.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer" -eq 1' -fa 'receive' -d 'Download a file from its recipient description, verify it and decrypt it.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer" -eq 1' -fa 'info' -d 'Show what a file description holds (validated strictly); keys are not shown.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer" -eq 1' -fa 'cancel' -d 'Delete a sent file\'s chunks from its relay; recipients then get "not found".'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer plan" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer plan" above-soft-limit' -l 'above-soft-limit' -d 'Plan relay transfers above the 1 GiB soft limit, up to the 5 GiB hard limit.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer plan" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer plan" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer plan" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer plan" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer send" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send"' -l 'server' -d 'An XFTP server, xftp://KEYHASH[:PASSWORD]@HOST[:PORT]; repeat for several (chunks are spread over them). Default: $SXKIT_XFTP_SERVERS, else the servers in ~/.config/sxkit/xftp-servers, else SimpleX\'s preset servers.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" relay' -l 'relay' -d 'A folder relay instead: a folder on a mounted disk or share (offline moves).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" socks-proxy' -l 'socks-proxy' -d 'Reach XFTP servers through this SOCKS5 proxy, e.g. Tor\'s 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" recipients' -l 'recipients' -d 'How many recipient descriptions to write (each can download the file).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" force' -l 'force' -d 'Replace descriptions an earlier send of this file left in the output folder (its other recipient descriptions are removed).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send"' -l 'link' -d 'Also write each recipient description as a link: simplex (simplex:/file#/?desc=…, through a redirect when needed) or web (the xftp CLI\'s https://<host>/#…); repeat for both.' -rfka 'simplex web'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" above-soft-limit' -l 'above-soft-limit' -d 'Send a file above the 1 GiB soft limit, up to the 5 GiB hard limit.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" o output' -s 'o' -l 'output' -d 'Folder for the descriptions (default: the current folder).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" parallel' -l 'parallel' -d 'Chunks uploaded or downloaded at once (1-32).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" retry' -l 'retry' -d 'Attempts per network operation before giving up (1-20), as the xftp CLI\'s --retry.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" temp-dir' -l 'temp-dir' -d 'Folder for work files and resume state (default: the data directory\'s temp folder, else $TMPDIR/sxkit-transfers).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" data-dir' -l 'data-dir' -d 'The SimpleX data directory whose temp folder holds the work files (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer receive" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" o output' -s 'o' -l 'output' -d 'A folder (the sender\'s file name is kept; a path ending in / is a folder, created when missing) or a new file\'s path (default: the current folder).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" force' -l 'force' -d 'Replace an existing file of the same name (atomically, once the received file is verified).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" relay' -l 'relay' -d 'Use this folder for the description\'s folder relay (mounted elsewhere here).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" socks-proxy' -l 'socks-proxy' -d 'Reach XFTP servers through this SOCKS5 proxy, e.g. Tor\'s 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" parallel' -l 'parallel' -d 'Chunks uploaded or downloaded at once (1-32).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" retry' -l 'retry' -d 'Attempts per network operation before giving up (1-20), as the xftp CLI\'s --retry.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" temp-dir' -l 'temp-dir' -d 'Folder for work files and resume state (default: the data directory\'s temp folder, else $TMPDIR/sxkit-transfers).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" data-dir' -l 'data-dir' -d 'The SimpleX data directory whose temp folder holds the work files (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer receive" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer info" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer info" link' -l 'link' -d 'Print the (recipient) description as a link: simplex (simplex:/file#/?desc=…) or web (the xftp CLI\'s).' -rfka 'simplex web'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer info" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer info" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer info" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer info" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit transfer cancel" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" relay' -l 'relay' -d 'Use this folder for the description\'s folder relay (mounted elsewhere here).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" socks-proxy' -l 'socks-proxy' -d 'Reach XFTP servers through this SOCKS5 proxy, e.g. Tor\'s 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit transfer cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit relay" -eq 1' -fa 'serve' -d 'Run an XFTP server (SimpleX\'s file relay protocol) from a store folder until SIGINT or SIGTERM.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" listen' -l 'listen' -d 'HOST:PORT to listen on (port 0: any free port).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" store' -l 'store' -d 'Folder holding the identity, store log and chunks (created 0700).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" public-host' -l 'public-host' -d 'The host name or address clients reach the server at, written in its address and certificate (default: the --listen host).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" password-file' -l 'password-file' -d 'A file (0600) holding the password senders must give to upload (basic auth: xftp://KEYHASH:PASSWORD@HOST).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" web-root' -l 'web-root' -d 'A folder served to browsers, such as a build of SimpleX\'s xftp-web page, so that web links to this server open in a browser (GET requests with SNI; index.html for / and for folders).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" web-certificate' -l 'web-certificate' -d 'A PEM certificate chain presented to browsers (clients that send SNI) instead of the server\'s own, e.g. one a public CA issued for --public-host; their requests then also get CORS headers. Needs --web-key.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" web-key' -l 'web-key' -d 'The PEM private key of --web-certificate (mode 0600).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" expiry' -l 'expiry' -d 'How long a chunk is kept: N followed by h or d (SimpleX rounds creation times to the hour).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" max-store' -l 'max-store' -d 'Total size of the chunks held, e.g. 20G.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" certificate-algorithm' -l 'certificate-algorithm' -d 'The identity\'s key type for a new store: ed448 (SimpleX\'s default) or ed25519.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit relay serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit migrate" -eq 1' -fa 'send' -d 'Export the data directory as a chat archive, send it to XFTP servers, and print the link the SimpleX apps migrate from.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit migrate" -eq 1' -fa 'receive' -d 'Receive a migrated profile from its recipient description and import it into a data directory.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send"' -l 'server' -d 'An XFTP server, xftp://KEYHASH[:PASSWORD]@HOST[:PORT]; repeat for several (chunks are spread over them). Default: $SXKIT_XFTP_SERVERS, else the servers in ~/.config/sxkit/xftp-servers, else SimpleX\'s preset servers.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" relay' -l 'relay' -d 'A folder relay instead: a folder on a mounted disk or share (offline moves).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" socks-proxy' -l 'socks-proxy' -d 'Reach XFTP servers through this SOCKS5 proxy, e.g. Tor\'s 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" o output' -s 'o' -l 'output' -d 'Folder for the sender and recipient descriptions (default: the current folder).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" qr' -l 'qr' -d 'Print the link\'s QR code even when stdout is not a terminal.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" allow-unencrypted' -l 'allow-unencrypted' -d 'Send databases that have no passphrase (the SimpleX apps will not import them).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" fresh' -l 'fresh' -d 'Export a new archive even when an interrupted send left one waiting.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" above-soft-limit' -l 'above-soft-limit' -d 'Send an archive above the 1 GiB soft limit, up to the 5 GiB hard limit.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" parallel' -l 'parallel' -d 'Chunks uploaded or downloaded at once (1-32).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" retry' -l 'retry' -d 'Attempts per network operation before giving up (1-20), as the xftp CLI\'s --retry.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit migrate receive" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" relay' -l 'relay' -d 'Use this folder for the description\'s folder relay (mounted elsewhere here).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" socks-proxy' -l 'socks-proxy' -d 'Reach XFTP servers through this SOCKS5 proxy, e.g. Tor\'s 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" direct' -l 'direct' -d 'Connect to the servers directly even when the link says its sender reaches them through Tor (a SOCKS proxy or .onion hosts).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" force' -l 'force' -d 'Import over a profile already in the data directory (its databases are kept as .bak).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" parallel' -l 'parallel' -d 'Chunks uploaded or downloaded at once (1-32).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" retry' -l 'retry' -d 'Attempts per network operation before giving up (1-20), as the xftp CLI\'s --retry.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit migrate receive" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit storage" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" temp' -l 'temp' -d 'Remove everything in the layout\'s temp folders.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" older-than' -l 'older-than' -d 'With --temp: only what was last modified longer ago than this (e.g. 30m, 12h, 2d, 1w).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" orphans' -l 'orphans' -d 'Remove files in the files folder that the chat database does not reference.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" leftovers' -l 'leftovers' -d 'Remove .bak, .exported, .migration-backup and temp files earlier operations left.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" all-files' -l 'all-files' -d 'Remove every file in the files folder; the databases stay (the app\'s "delete files").'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" everything' -l 'everything' -d 'Remove the databases, files, temp folders, assets and leftovers (the app\'s "delete all").'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" dry-run' -l 'dry-run' -d 'Only list what would be removed.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" yes' -l 'yes' -d 'Remove without asking.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit clean" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" deep' -l 'deep' -d 'Run integrity_check and cipher_integrity_check instead of quick_check (reads every page).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" read-data' -l 'read-data' -d 'Verify every CryptoFile\'s tag with its key from the chat database (reads every encrypted byte).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit chats" -eq 1' -fa 'list' -d 'List every user profile and its contacts, groups and private notes, with message and file counts.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit chats" -eq 1' -fa 'export' -d 'Export chats as text, JSON Lines or HTML transcripts, with a manifest of hashes (read-only).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" o output' -s 'o' -l 'output' -d 'The folder to write into (created 0700).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" user' -l 'user' -d 'Only this user profile\'s chats: its id or display name.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" since' -l 'since' -d 'Only items sent at or after this time: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (local time, or UTC with --utc).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" until' -l 'until' -d 'Only items sent before this time (same forms as --since).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export"' -l 'format' -d 'txt, jsonl or html; give it more than once for several (default: txt).' -rfka 'txt jsonl html'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" utc' -l 'utc' -d 'Write times in UTC instead of the local time zone.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" force' -l 'force' -d 'Replace transcripts, media and a manifest an earlier export left in the folder.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" no-media' -l 'no-media' -d 'Do not copy attached files into DIR/media/ (the transcripts still name them).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" data-dir' -l 'data-dir' -d 'The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app\'s).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" files-dir' -l 'files-dir' -d 'Override the files folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" temp-dir' -l 'temp-dir' -d 'Override the temp folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" assets-dir' -l 'assets-dir' -d 'Override the assets folder.' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" passphrase-command' -l 'passphrase-command' -d 'Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" desktop-passphrase' -l 'desktop-passphrase' -d 'Use the passphrase the desktop app stored in its settings.properties.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" no-passphrase' -l 'no-passphrase' -d 'The databases are not encrypted: use no passphrase.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" json' -l 'json' -d 'Print JSON on stdout: one compact document, or one object a line (NDJSON) for streams and batches; a fatal error is also a JSON object on stderr.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" q quiet' -s 'q' -l 'quiet' -d 'Print only problems: errors, failed items and what a check found wrong (no summary, notes or progress).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" v verbose' -s 'v' -l 'verbose' -d 'Also print every item done and the details the summary leaves out.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit chats export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" dir' -l 'dir' -d 'Folder for the sample data directory (default: a new folder under $TMPDIR).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" seed' -l 'seed' -d 'Seed for the generated content.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" sample-only' -l 'sample-only' -d 'Only build the sample data directory (for experiments and benchmarks); walk nothing.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" chat-db-size' -l 'chat-db-size' -d 'Grow the sample chat database\'s history to at least this size (e.g. 500MB, 1GiB).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" chat-items' -l 'chat-items' -d 'Write this many chat items of conversation (besides those carrying files).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" bulk-files' -l 'bulk-files' -d 'Add this many small files (1-8 KiB, some encrypted, missing or orphaned) to the sample files folder.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" h help' -s 'h' -l 'help' -d 'Show help information.'

# `sxkit help <TAB>` offers command names, level by level (added by scripts/complete-help)
function __sxkit_help_names
    set -l words (__sxkit_tokens -pc)
    switch (string join ' ' -- $words[3..])
    case ''
        printf '%s\n' db archive files image transfer relay migrate storage clean check chats demo
    case 'db'
        printf '%s\n' inspect test-key rekey recover status migrate
    case 'archive'
        printf '%s\n' export import list verify recover
    case 'files'
        printf '%s\n' encrypt decrypt cat verify
    case 'image'
        printf '%s\n' compress
    case 'transfer'
        printf '%s\n' plan send receive info cancel
    case 'relay'
        printf '%s\n' serve
    case 'migrate'
        printf '%s\n' send receive
    case 'chats'
        printf '%s\n' list export
    end
end
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit help" -ge 1' -fka '(__sxkit_help_names)'
