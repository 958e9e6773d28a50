#!/usr/bin/env bash
# A termbase-sized glossary (issue 33): for synthetic glossaries of 10k,
# 100k and 1M entries (bench/gen_workload.rs: 1–3-word invented terms,
# 10% with an alias), prints
#   - per retriever, the heap its index keeps, the peak during its build
#     and the build time (bench/footprint.rs: a counting allocator, one
#     thread of work at a time as the retrievers are built one by one);
#   - one post through `glossa translate` with the offline provider and the
#     default retriever, whole process: wall seconds, user + system
#     seconds and peak RSS (/usr/bin/time), the fastest of REPEAT runs.
#   bash bench/termbase.sh [SIZES...]      # default: 10000 100000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
cargo build --release --quiet --bin glossa --example gen_workload --example footprint
dir=${CARGO_TARGET_DIR:-target}/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in "${sizes[@]}"; do
  "$dir/examples/gen_workload" "$work/n$n" "$n" 1 42 >/dev/null
  g="$work/n$n/glossary.json"
  # A post that holds one real entry of this glossary, inflected.
  term=$(grep -o '"source": "[^"]*"' "$g" | sed -n '2p' | cut -d'"' -f4)
  post="Fresh ${term}s today: our new loaves come out of the oven at four."
  echo "== $n entries ($(du -h "$g" | cut -f1) of JSON); post: \"$post\""
  "$dir/examples/footprint" "$g"
  best=""
  for ((i = 0; i < REPEAT; i++)); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$dir/glossa" translate -g "$g" "$post" \
      --format json >"$work/out.json"
    read -r wall user sys rss <"$work/time"
    if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best="$wall $user $sys $rss"
    fi
  done
  read -r wall user sys rss <<<"$best"
  awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
    'BEGIN { printf "translate (offline, default retriever): %.2f s wall, %.2f s user + %.2f s system, peak RSS %.0f MB\n", w, u, s, r / 1024 }'
done
