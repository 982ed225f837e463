#!/usr/bin/env bash
# The GitHub Action's one step (action.yml), usable from any CI: reads its inputs from INPUT_*
# variables, runs `netsim run -- COMMAND` around the user's own test command (or `netsim bench`
# when there is none), shows the command's output in the log (a copy in INPUT_OUT/netsim-run.txt),
# writes the Markdown to the job summary (GITHUB_STEP_SUMMARY, when set), keeps the JSON, JUnit
# and HTML in INPUT_OUT, and exits with netsim's status: the command's
# own when it fails, 3 when a gate is breached (docs/ci.md).
#
#   INPUT_NETSIM          the netsim binary (default: netsim on the PATH)
#   INPUT_PROFILE         a built-in profile or a profile file (default: lte-tunnel)
#   INPUT_COMMAND         the test command, run by `sh -c` behind the phone; empty: a bench
#   INPUT_FRONT_ENDS      socks5, http-proxy or both (default: both), for the command
#   INPUT_FAIL_IF         gates, one `KEY OP NUMBER` per line
#   INPUT_BASELINE        an earlier JSON report of the same command, for --baseline
#   INPUT_MAX_REGRESSION  with the baseline (default: 10%)
#   INPUT_DURATION        the bench's duration, or an upper bound on the command's run
#   INPUT_DEVICES         the bench's devices per transport (default: 3)
#   INPUT_ENGINE          the bench's engine: live or model (default: live)
#   INPUT_SEED            the seed (default: 1)
#   INPUT_OUT             where the reports go (default: netsim-reports)
set -uo pipefail
netsim=${INPUT_NETSIM:-netsim}
profile=${INPUT_PROFILE:-lte-tunnel}
out=${INPUT_OUT:-netsim-reports}
mkdir -p "$out"

gates=()
while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ -n "$line" ] && gates+=(--fail-if "$line")
done <<<"${INPUT_FAIL_IF:-}"
if [ -n "${INPUT_BASELINE:-}" ]; then
    gates+=(--baseline "$INPUT_BASELINE" --max-regression "${INPUT_MAX_REGRESSION:-10%}")
fi
gates+=(--junit "$out/netsim-junit.xml" --seed "${INPUT_SEED:-1}")

status=0
if [ -n "${INPUT_COMMAND:-}" ]; then
    front_ends=()
    case "${INPUT_FRONT_ENDS:-both}" in
    socks5) front_ends=(--socks5 :0) ;;
    http-proxy) front_ends=(--http-proxy :0) ;;
    both) front_ends=(--socks5 :0 --http-proxy :0) ;;
    *) echo "front-ends: '${INPUT_FRONT_ENDS}' is not socks5, http-proxy or both" >&2; exit 64 ;;
    esac
    duration=()
    [ -n "${INPUT_DURATION:-}" ] && duration=(--duration "$INPUT_DURATION")
    # The command's output belongs in the CI log; netsim-run.txt keeps a copy beside the reports.
    "$netsim" run --quiet --profile "$profile" "${front_ends[@]}" "${duration[@]}" "${gates[@]}" \
        --report "$out/netsim-run.json" -- sh -c "$INPUT_COMMAND" 2>&1 | tee "$out/netsim-run.txt" || status=$?
    if [ -s "$out/netsim-run.json" ]; then
        "$netsim" report show "$out/netsim-run.json" --format html >"$out/netsim-run.html"
        summary=$("$netsim" report show "$out/netsim-run.json" --format md)
    else
        summary=$(printf '## netsim run on %s\n\nNo report: netsim exited with status %s (its output is in the job log and netsim-run.txt).\n' "$profile" "$status")
    fi
else
    "$netsim" bench --quiet --profile "$profile" --engine "${INPUT_ENGINE:-live}" --duration "${INPUT_DURATION:-2m}" \
        --phones "${INPUT_DEVICES:-3}" --out "$out" --format md,json,html "${gates[@]}" >/dev/null || status=$?
    summary=$(cat "$out"/bench-*.md 2>/dev/null)
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # A job summary holds at most 1 MiB.
    printf '%s\n' "$summary" | head -c 1000000 >>"$GITHUB_STEP_SUMMARY"
else
    printf '%s\n' "$summary"
fi
echo "netsim exited with status $status; reports in $out" >&2
exit "$status"
