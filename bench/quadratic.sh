#!/usr/bin/env bash
# The steps that were quadratic (issue 30, defect 7), timed against input
# size: a prompt template of N placeholders (`glossa translate --prompt`,
# which checks and renders it) and `glossa lint` of one entry of N forms.
# Linear means the seconds grow as N does (x4 size, about x4 time); before
# the fix 80,000 placeholders took 12.8 s and 100,000 forms 17 s.
#   bash bench/quadratic.sh [SIZES...]     # default 25000 50000 100000 200000
#   BIN=target/debug/glossa bash bench/quadratic.sh 10000   # without the release build
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(25000 50000 100000 200000)
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin glossa
  BIN=target/release/glossa
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { # COMMAND...: wall seconds, output discarded
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
printf '%-28s %10s %9s\n' step size seconds
for n in "${sizes[@]}"; do
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "{{text}} {{source_lang}}" }' >"$work/many.v1.md"
  printf '%-28s %10s %9.3f\n' "prompt placeholders" "$n" \
    "$(seconds "$BIN" translate --prompt "$work/many.v1.md" "Try our cold coffee")"
  awk -v n="$n" 'BEGIN {
    printf "{\"entries\":[{\"source\":\"experiment\",\"target\":\"Experiment\",\"forms\":["
    for (i = 0; i < n; i++) printf "%s\"form%d\"", (i ? "," : ""), i
    print "]}]}" }' >"$work/forms.json"
  printf '%-28s %10s %9.3f\n' "lint forms of one entry" "$n" \
    "$(seconds "$BIN" lint "$work/forms.json")"
done
