# Helpers shared by the benchmark scripts (sourced, not run).
#
# Each script sets RUNS and WARMUP before calling hf, and declares the arrays it fills:
#   declare -A MEAN SD USR SYS; DETAILS=()
# RSS_TOOL is set by pick_rss_tool.

log() { printf '\n== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
q() { printf '%q' "$1"; }                     # quote a path for a hyperfine command line
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }   # calc EXPR [DECIMALS]
pass_if() { awk "BEGIN { exit !($1) }" && echo PASS || echo FAIL; }
avail_bytes() { df -B1 --output=avail -- "$1" | tail -n 1 | tr -d ' '; }
fs_type() { df --output=fstype -- "$1" | tail -n 1 | tr -d ' '; }
mb_per_s() { calc "$1 / $2 / 1e6" 0; }        # mb_per_s BYTES SECONDS

# hf JSON NAME PREPARE COMMAND [NAME PREPARE COMMAND]...
# Runs one hyperfine comparison; each command gets its own --prepare (not timed). Every prepare
# ends with `sync`, so no run pays for writing back another run's (or another tool's) dirty pages.
hf() {
    local json=$1
    shift
    local args=(--warmup "$WARMUP" --runs "$RUNS" --shell bash --export-json "$json")
    while (($#)); do
        args+=(--command-name "$1" --prepare "$2; sync" "$3")
        shift 3
    done
    hyperfine "${args[@]}" >&2
    local name mean sd user sys
    while IFS=$'\t' read -r name mean sd user sys; do
        MEAN[$name]=$mean SD[$name]=$sd USR[$name]=$user SYS[$name]=$sys
        DETAILS+=("| $name | $(calc "$mean") ± $(calc "$sd") | $(calc "$user") | $(calc "$sys") | $(calc "100 * ($user + $sys) / $mean" 0) % |")
    done < <(jq -r '.results[] | [.command, .mean, (.stddev // 0), .user, .system] | @tsv' "$json")
}

# pick_rss_tool: GNU time when it works, else python3's getrusage.
pick_rss_tool() {
    if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
        RSS_TOOL=gnu-time
    elif command -v python3 >/dev/null; then
        RSS_TOOL=python3
    else
        die "peak RSS needs GNU time (/usr/bin/time) or python3"
    fi
}

# peak_rss_kib COMMAND...: the command's peak resident set size, KiB (its stdout is discarded).
peak_rss_kib() {
    if [[ $RSS_TOOL == gnu-time ]]; then
        local out
        out=$(mktemp)
        /usr/bin/time -f %M -o "$out" "$@" >/dev/null
        tail -n 1 "$out"
        rm -f -- "$out"
    else
        python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
    fi
}

