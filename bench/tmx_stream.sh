#!/usr/bin/env bash
# Streaming a large TMX (issue 31: "a 1 GB TMX streams in bounded memory"):
# generates a ~1 GiB TMX once (bench/gen_tmx.rs; target/bench/, reused),
# then runs a command on it and prints its segments/s and peak RSS.
#   bash bench/tmx_stream.sh                   # the reader alone (bench/count_segments.rs)
#   bash bench/tmx_stream.sh CMD [ARGS...]     # any command; the TMX's path is appended
#   bash bench/tmx_stream.sh target/release/glossa check --glossary glossaries/cafe.json --format json
#   TMX_MB=256 bash bench/tmx_stream.sh        # another size (MiB)
# Peak RSS comes from /usr/bin/time -v when it is installed (Debian
# package `time`), else from the counter's own /proc/self/status VmHWM.
# The counter prints segments/s itself; for another command the rate is
# the generator's unit count over the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${TMX_MB:-1024}
cargo build --release --quiet --example gen_tmx --example count_segments
out=${CARGO_TARGET_DIR:-target}
tmx="$out/bench/stream-${MB}m.tmx"
mkdir -p "$out/bench"
if [ ! -s "$tmx" ]; then
  echo "== generating $tmx" >&2
  "$out/release/examples/gen_tmx" "$tmx.tmp" "$MB" 2>"$tmx.units"
  mv "$tmx.tmp" "$tmx"
fi
units=$(sed -n 's/.*: \([0-9]*\) units.*/\1/p' "$tmx.units")
if [ "$#" -eq 0 ]; then
  set -- "$out/release/examples/count_segments"
fi
echo "== $* $tmx ($(du -h "$tmx" | cut -f1), $units units)" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$@" "$tmx" >/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
else
  "$@" "$tmx" >/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
fi
end=$(date +%s.%N)
grep -E 'segments/s' "$log" || true
wall=$(echo "$end - $start" | bc -l)
printf 'wall %.2f s, %.0f units/s\n' "$wall" "$(echo "$units / $wall" | bc -l)"
grep -E 'Maximum resident set size' "$log" | sed 's/^\s*/peak RSS (time -v): /' || true
