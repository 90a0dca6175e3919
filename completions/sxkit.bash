#!/bin/bash

__sxkit_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__sxkit_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__sxkit_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__sxkit_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_sxkit() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    db|archive|files|image|transfer|relay|migrate|storage|clean|check|chats|demo|help)
        # Offer subcommand argument completions
        "_sxkit_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'db archive files image transfer relay migrate storage clean check chats demo help' -- "${cur}"))
        ;;
    esac
}

_sxkit_db() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    inspect|test-key|rekey|recover|status|migrate)
        # Offer subcommand argument completions
        "_sxkit_db_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'inspect test-key rekey recover status migrate' -- "${cur}"))
        ;;
    esac
}

_sxkit_db_inspect() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose --deep -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_db_test-key() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_db_rekey() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --decrypt --keep-backup --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db --passphrase-file --passphrase-command --new-passphrase-file --new-passphrase-command --desktop-settings)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '--new-passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--new-passphrase-command')
        return
        ;;
    '--desktop-settings')
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_db_recover() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_db_status() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db --role --migrations --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    '--role')
        __sxkit_add_completions -W 'chat'$'\n''agent'
        return
        ;;
    '--migrations')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_db_migrate() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --db --role --migrations --confirm --backup-path --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--db')
        __sxkit_add_completions -f
        return
        ;;
    '--role')
        __sxkit_add_completions -W 'chat'$'\n''agent'
        return
        ;;
    '--migrations')
        __sxkit_add_completions -d
        return
        ;;
    '--confirm')
        __sxkit_add_completions -W 'yesUp'$'\n''yesUpDown'$'\n''error'$'\n''console'
        return
        ;;
    '--backup-path')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_archive() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    export|import|list|verify|recover)
        # Offer subcommand argument completions
        "_sxkit_archive_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'export import list verify recover' -- "${cur}"))
        ;;
    esac
}

_sxkit_archive_export() {
    repeating_flags=()
    non_repeating_flags=(--no-compression --force --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_archive_import() {
    repeating_flags=()
    non_repeating_flags=(--force --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_archive_list() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_archive_verify() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_archive_recover() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    esac
}

_sxkit_files() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    encrypt|decrypt|cat|verify)
        # Offer subcommand argument completions
        "_sxkit_files_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'encrypt decrypt cat verify' -- "${cur}"))
        ;;
    esac
}

_sxkit_files_encrypt() {
    repeating_flags=()
    non_repeating_flags=(--in-place --force --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(-o --output --manifest --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command -j --jobs)
    __sxkit_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--manifest')
        __sxkit_add_completions -f
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '-j'|'--jobs')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_files_decrypt() {
    repeating_flags=()
    non_repeating_flags=(--in-place --force --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--manifest --args-file -o --output --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command -j --jobs)
    __sxkit_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--manifest')
        __sxkit_add_completions -f
        return
        ;;
    '--args-file')
        __sxkit_add_completions -f
        return
        ;;
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '-j'|'--jobs')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_files_cat() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--manifest --args-file)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--manifest')
        __sxkit_add_completions -f
        return
        ;;
    '--args-file')
        __sxkit_add_completions -f
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_files_verify() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--manifest --args-file --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command -j --jobs)
    __sxkit_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--manifest')
        __sxkit_add_completions -f
        return
        ;;
    '--args-file')
        __sxkit_add_completions -f
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '-j'|'--jobs')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_image() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    compress)
        # Offer subcommand argument completions
        "_sxkit_image_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'compress' -- "${cur}"))
        ;;
    esac
}

_sxkit_image_compress() {
    repeating_flags=()
    non_repeating_flags=(--keep-metadata --data-uri --force --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(-o --output --max-size --format --max-pixels -j --jobs)
    __sxkit_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--max-size')
        return
        ;;
    '--format')
        __sxkit_add_completions -W 'auto'$'\n''jpeg'$'\n''png'
        return
        ;;
    '--max-pixels')
        return
        ;;
    '-j'|'--jobs')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_transfer() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    plan|send|receive|info|cancel)
        # Offer subcommand argument completions
        "_sxkit_transfer_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'plan send receive info cancel' -- "${cur}"))
        ;;
    esac
}

_sxkit_transfer_plan() {
    repeating_flags=()
    non_repeating_flags=(--above-soft-limit --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    *)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_transfer_send() {
    repeating_flags=()
    non_repeating_flags=(--force --above-soft-limit --json -q --quiet -v --verbose -h --help)
    repeating_options=(--server --link)
    non_repeating_options=(--relay --socks-proxy --recipients -o --output --parallel --retry --temp-dir --data-dir)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--relay')
        __sxkit_add_completions -d
        return
        ;;
    '--socks-proxy')
        return
        ;;
    '--recipients')
        return
        ;;
    '--link')
        __sxkit_add_completions -W 'simplex'$'\n''web'
        return
        ;;
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--parallel')
        return
        ;;
    '--retry')
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_transfer_receive() {
    repeating_flags=()
    non_repeating_flags=(--force --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(-o --output --relay --socks-proxy --parallel --retry --temp-dir --data-dir)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        __sxkit_add_completions -f
        return
        ;;
    '--relay')
        __sxkit_add_completions -d
        return
        ;;
    '--socks-proxy')
        return
        ;;
    '--parallel')
        return
        ;;
    '--retry')
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_transfer_info() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--link)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--link')
        __sxkit_add_completions -W 'simplex'$'\n''web'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_transfer_cancel() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--relay --socks-proxy)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--relay')
        __sxkit_add_completions -d
        return
        ;;
    '--socks-proxy')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_relay() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    serve)
        # Offer subcommand argument completions
        "_sxkit_relay_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'serve' -- "${cur}"))
        ;;
    esac
}

_sxkit_relay_serve() {
    repeating_flags=()
    non_repeating_flags=(--json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--listen --store --public-host --password-file --web-root --web-certificate --web-key --expiry --max-store --certificate-algorithm)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--listen')
        return
        ;;
    '--store')
        __sxkit_add_completions -d
        return
        ;;
    '--public-host')
        return
        ;;
    '--password-file')
        __sxkit_add_completions -f
        return
        ;;
    '--web-root')
        __sxkit_add_completions -d
        return
        ;;
    '--web-certificate')
        __sxkit_add_completions -f
        return
        ;;
    '--web-key')
        __sxkit_add_completions -f
        return
        ;;
    '--expiry')
        return
        ;;
    '--max-store')
        return
        ;;
    '--certificate-algorithm')
        return
        ;;
    esac
}

_sxkit_migrate() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    send|receive)
        # Offer subcommand argument completions
        "_sxkit_migrate_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'send receive' -- "${cur}"))
        ;;
    esac
}

_sxkit_migrate_send() {
    repeating_flags=()
    non_repeating_flags=(--qr --allow-unencrypted --fresh --above-soft-limit --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=(--server)
    non_repeating_options=(--relay --socks-proxy -o --output --parallel --retry --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--server')
        return
        ;;
    '--relay')
        __sxkit_add_completions -d
        return
        ;;
    '--socks-proxy')
        return
        ;;
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--parallel')
        return
        ;;
    '--retry')
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_migrate_receive() {
    repeating_flags=()
    non_repeating_flags=(--direct --force --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--relay --socks-proxy --parallel --retry --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--relay')
        __sxkit_add_completions -d
        return
        ;;
    '--socks-proxy')
        return
        ;;
    '--parallel')
        return
        ;;
    '--retry')
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __sxkit_add_completions -f
        return
        ;;
    esac
}

_sxkit_storage() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_clean() {
    repeating_flags=()
    non_repeating_flags=(--temp --orphans --leftovers --all-files --everything --dry-run --yes --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--older-than --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--older-than')
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_check() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --deep --read-data --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command -j --jobs)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    '-j'|'--jobs')
        return
        ;;
    esac
}

_sxkit_chats() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __sxkit_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|export)
        # Offer subcommand argument completions
        "_sxkit_chats_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list export' -- "${cur}"))
        ;;
    esac
}

_sxkit_chats_list() {
    repeating_flags=()
    non_repeating_flags=(--desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_chats_export() {
    repeating_flags=()
    non_repeating_flags=(--utc --force --no-media --desktop-passphrase --no-passphrase --json -q --quiet -v --verbose -h --help)
    repeating_options=(--format)
    non_repeating_options=(-o --output --user --since --until --data-dir --files-dir --temp-dir --assets-dir --passphrase-file --passphrase-command)
    __sxkit_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '-o'|'--output')
        __sxkit_add_completions -d
        return
        ;;
    '--user')
        return
        ;;
    '--since')
        return
        ;;
    '--until')
        return
        ;;
    '--format')
        __sxkit_add_completions -W 'txt'$'\n''jsonl'$'\n''html'
        return
        ;;
    '--data-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--files-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--temp-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--assets-dir')
        __sxkit_add_completions -d
        return
        ;;
    '--passphrase-file')
        __sxkit_add_completions -f
        return
        ;;
    '--passphrase-command')
        return
        ;;
    esac
}

_sxkit_demo() {
    repeating_flags=()
    non_repeating_flags=(--sample-only -h --help)
    repeating_options=()
    non_repeating_options=(--dir --seed --chat-db-size --chat-items --bulk-files)
    __sxkit_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--dir')
        __sxkit_add_completions -d
        return
        ;;
    '--seed')
        return
        ;;
    '--chat-db-size')
        return
        ;;
    '--chat-items')
        return
        ;;
    '--bulk-files')
        return
        ;;
    esac
}

_sxkit_help() {
    # `sxkit help <TAB>` offers command names, level by level (added by scripts/complete-help)
    local names=''
    case "${unparsed_words[*]:0:${#unparsed_words[@]}-1}" in
    '') names='db archive files image transfer relay migrate storage clean check chats demo' ;;
    'db') names='inspect test-key rekey recover status migrate' ;;
    'archive') names='export import list verify recover' ;;
    'files') names='encrypt decrypt cat verify' ;;
    'image') names='compress' ;;
    'transfer') names='plan send receive info cancel' ;;
    'relay') names='serve' ;;
    'migrate') names='send receive' ;;
    'chats') names='list export' ;;
    esac
    COMPREPLY+=($(compgen -W "${names}" -- "${cur}"))
}

complete -o filenames -F _sxkit sxkit
