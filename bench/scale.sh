#!/usr/bin/env bash
# Import and lint of a large glossary (issue 13's bounds: 200k rows import
# in at most 10 s; lint of 200k entries in at most 30 s and under 2 GB).
# Generates a seeded glossary (bench/gen_workload.rs), writes it as TSV, CSV
# and TBX, then times `glossa import` of each and `glossa lint` with
# /usr/bin/time (wall seconds, peak RSS). Exits 1 when a bound is missed.
#   bash bench/scale.sh [ENTRIES]     # default 200000
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
cargo build --release --quiet --bin glossa --example gen_workload
bin=target/release/glossa
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_workload "$work" "$n" 10 >/dev/null
"$bin" export "$work/glossary.json" --format tsv --header >"$work/g.tsv"
"$bin" export "$work/glossary.json" --format csv --header >"$work/g.csv"
# TBX from the TSV (id, source, target): invented words need no escaping.
awk -F'\t' 'BEGIN { print "<?xml version=\"1.0\"?>\n<martif type=\"TBX\"><text><body>" }
  NR > 1 { printf "<termEntry id=\"%s\">\n  <langSet xml:lang=\"en\"><tig><term>%s</term></tig></langSet>\n  <langSet xml:lang=\"fr\"><tig><term>%s</term></tig></langSet>\n</termEntry>\n", $1, $2, $3 }
  END { print "</body></text></martif>" }' "$work/g.tsv" >"$work/g.tbx"

failed=0
# run LABEL MAX_SECONDS MAX_KB COMMAND...: time it, print, check the bounds
run() {
  local label=$1 max_s=$2 max_kb=$3; shift 3
  local status=0 wall rss
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || status=$?
  # /usr/bin/time adds a line first when the command exits non-zero
  read -r wall rss < <(tail -n 1 "$work/time")
  printf '%-12s %6.2f s %8d KB (exit %d)\n' "$label" "$wall" "$rss" "$status"
  if awk -v w="$wall" -v m="$max_s" -v r="$rss" -v k="$max_kb" 'BEGIN { exit !(w > m || r > k) }'; then
    echo "  over the bound: ${max_s} s, ${max_kb} KB" >&2
    failed=1
  fi
}
for f in tsv csv; do
  run "import $f" 10 2000000 "$bin" import "$work/g.$f" --out "$work/out-$f.json"
done
run "import tbx" 10 2000000 "$bin" import "$work/g.tbx" --out "$work/out-tbx.json" --target-lang fr
# lint exits 1 when it has warnings; that is not a failure here
run "lint" 30 2000000 "$bin" lint "$work/glossary.json" --format json
exit $failed
