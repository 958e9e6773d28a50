#!/usr/bin/env bash
# Why the same run's system time wanders: `glossa eval --retriever glossa
# --threads 1` at 100k entries (20,000 posts, bench/gen_workload.rs), RUNS
# times back to back and RUNS times each after `sleep PAUSE` seconds, with
# mimalloc's default (transparent huge pages) and with them off
# (MIMALLOC_ALLOW_THP=0). Prints wall, user and system seconds, peak RSS
# and page faults of every run.
#   bash bench/systime.sh          (RUNS=3 PAUSE=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
PAUSE=${PAUSE:-3}
cargo build --release --quiet --bin glossa --example gen_workload
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_workload "$work" 100000 20000 42

run() { # LABEL ENV...
  local label=$1; shift
  /usr/bin/time -f "$label %e %U %S %M %R" env "$@" target/release/glossa eval \
    -g "$work/glossary.json" -p "$work/posts.jsonl" -l "$work/labels.jsonl" \
    --retriever glossa --threads 1 --no-save --per-post off --format json 2>&1 >/dev/null | tail -n 1
}

printf '%-24s %6s %6s %6s %8s %8s\n' run wall user sys "RSS MB" faults
for thp in default off; do
  env_thp=(MIMALLOC_ALLOW_THP=1) # mimalloc's default, written out
  [ "$thp" = off ] && env_thp=(MIMALLOC_ALLOW_THP=0)
  for pause in 0 "$PAUSE"; do
    for ((i = 1; i <= RUNS; i++)); do
      sleep "$pause"
      run "thp-$thp,pause-${pause}s" "${env_thp[@]}"
    done
  done
done | awk '{ printf "%-24s %6.2f %6.2f %6.2f %8.0f %8d\n", $1, $2, $3, $4, $5 / 1024, $6 }'
