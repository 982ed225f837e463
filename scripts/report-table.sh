# Sourced by scripts/strategies.sh and scripts/strategies-buffers.sh: their tables, made by
# `netsim report table` from the bench reports their runs wrote.

# report_table DIR COLUMNS ROW...: a Markdown table, a row per transport of each ROW
# ("LABEL=RUN": the run's bench-*.json is in DIR/RUN/). COLUMNS is a comma-separated list of
# names that the sourcing script's `column` function turns into `--column TITLE=CELL`.
report_table() {
    local dir=$1 names args=() name row
    IFS=, read -ra names <<<"$2"
    shift 2
    for name in "${names[@]}"; do args+=(--column "$(column "$name")"); done
    for row in "$@"; do args+=("${row%%=*}=$(echo "$dir/${row#*=}"/bench-*.json)"); done
    "$NETSIM" report table "${args[@]}"
}
