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
        case 'files'
            __sxkit_parse_subcommand 0 'h/help'
            switch $unparsed_tokens[1]
            case 'encrypt'
                __sxkit_parse_subcommand -r 1 'o/output=' 'in-place' 'manifest=' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'decrypt'
                __sxkit_parse_subcommand -r 1 'manifest=' 'args-file=' 'o/output=' 'in-place' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            case 'cat'
                __sxkit_parse_subcommand 1 'manifest=' 'args-file=' 'h/help'
            case 'verify'
                __sxkit_parse_subcommand -r 1 'manifest=' 'args-file=' 'j/jobs=' 'json' 'q/quiet' 'v/verbose' 'h/help'
            end
        case 'demo'
            __sxkit_parse_subcommand 0 'dir=' 'seed=' 'h/help'
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
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'files' -d 'Encrypt and decrypt CryptoFiles (SimpleX local file encryption), one or many.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'demo' -d 'Build a sample SimpleX data directory and walk through what sxkit can do with it.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'encrypt' -d 'Encrypt files and folders (recursively) as CryptoFiles, recording each key in a manifest.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'decrypt' -d 'Decrypt CryptoFiles listed in a manifest, or one file with --args-file.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'cat' -d 'Write a CryptoFile\'s plaintext to stdout, after checking its tag.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files" -eq 1' -fa 'verify' -d 'Check CryptoFile tags without writing anything.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files encrypt" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" o output' -s 'o' -l 'output' -d 'Write results below this folder, keeping the inputs.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" in-place' -l 'in-place' -d 'Replace each file (crash-safe: a killed run is finished by the next one).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" manifest' -l 'manifest' -d 'The manifest that receives the keys (created 0600, merged if present).' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" json' -l 'json' -d 'Print JSON on stdout: one document, or one object a line for streams and batches.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" q quiet' -s 'q' -l 'quiet' -d 'Print only errors.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" v verbose' -s 'v' -l 'verbose' -d 'Print every item, not only failures and the summary.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files encrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files decrypt" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" o output' -s 'o' -l 'output' -d 'Write results below this folder, keeping the inputs.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" in-place' -l 'in-place' -d 'Replace each file (crash-safe: a killed run is finished by the next one).'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" json' -l 'json' -d 'Print JSON on stdout: one document, or one object a line for streams and batches.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" q quiet' -s 'q' -l 'quiet' -d 'Print only errors.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" v verbose' -s 'v' -l 'verbose' -d 'Print every item, not only failures and the summary.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files decrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files cat" -eq 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files cat" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_positional "sxkit files verify" -ge 1' -F
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" manifest' -l 'manifest' -d 'Manifest holding the files\' keys.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" args-file' -l 'args-file' -d 'A CryptoFileArgs JSON file ({"fileKey", "fileNonce"}), for a single file.' -rF
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" j jobs' -s 'j' -l 'jobs' -d 'Files processed at once (default: the number of cores).' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" json' -l 'json' -d 'Print JSON on stdout: one document, or one object a line for streams and batches.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" q quiet' -s 'q' -l 'quiet' -d 'Print only errors.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" v verbose' -s 'v' -l 'verbose' -d 'Print every item, not only failures and the summary.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit files verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" dir' -l 'dir' -d 'Folder for the sample data directory (default: a new folder under $TMPDIR).' -rfa '(__sxkit_complete_directories)'
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" seed' -l 'seed' -d 'Seed for the generated content.' -rfka ''
complete -c 'sxkit' -n '__sxkit_should_offer_completions_for_flags_or_options "sxkit demo" h help' -s 'h' -l 'help' -d 'Show help information.'
