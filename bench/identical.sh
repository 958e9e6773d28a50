#!/usr/bin/env bash
# Do two glossa binaries retrieve the same matches? Runs `glossa eval
# --per-post on --format json` with each binary for the retrievers whose
# code a speed change touches, on 5,000 posts of the 100k-entry synthetic
# workload (bench/gen_workload.rs, seed 42), and compares the output byte
# for byte, timings left out. With the real data of bench/real.sh present
# (target/real-data/CORPUS, each corpus), it compares them there too. Exits 1 on a difference.
#
#   bash bench/identical.sh OLD_BINARY [NEW_BINARY]
#
# NEW_BINARY defaults to target/release/glossa, built here. To get an old
# binary: git worktree add /tmp/old <commit> && (cd /tmp/old && cargo build
# --release), then pass /tmp/old/target/release/glossa.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bash bench/identical.sh OLD_BINARY [NEW_BINARY]}
new=${2:-target/release/glossa}
[ -x "$old" ] || { echo "identical.sh: $old is not an executable" >&2; exit 2; }
if [ -z "${2:-}" ]; then cargo build --release --quiet --bin glossa; fi
[ -x "$new" ] || { echo "identical.sh: $new is not an executable" >&2; exit 2; }
cargo build --release --quiet --example gen_workload
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_workload "$work" 100000 5000 42 >/dev/null

same=1
# compare NAME GLOSSARY POSTS LABELS RETRIEVER...
compare() {
  local name=$1 glossary=$2 posts=$3 labels=$4
  shift 4
  for retriever in "$@"; do
    for side in old new; do
      local binary=$old
      [ "$side" = new ] && binary=$new
      "$binary" eval -g "$glossary" -p "$posts" -l "$labels" --retriever "$retriever" \
        --threads 1 --no-save --per-post on --format json 2>/dev/null |
        grep -v -e '"seconds"' -e '"index_seconds"' -e '"posts_per_second"' >"$work/$side.json"
    done
    if cmp -s "$work/old.json" "$work/new.json"; then
      printf '%-10s %-36s same (%s bytes)\n' "$name" "$retriever" "$(wc -c <"$work/new.json")"
    else
      printf '%-10s %-36s DIFFERENT\n' "$name" "$retriever"
      diff "$work/old.json" "$work/new.json" | head -n 20 || true
      same=0
    fi
  done
}

compare synthetic "$work/glossary.json" "$work/posts.jsonl" "$work/labels.jsonl" \
  glossa exact normalised edit split fuzzy normalised+fuzzy \
  normalised+edit+split+alias alias+normalised+edit+split edit+alias alias
compared_real=0
for real in target/real-data/*/; do
  real=${real%/}
  if [ -f "$real/glossary.json" ] && [ -f "$real/posts.jsonl" ] && [ -f "$real/labels.jsonl" ]; then
    compare "$(basename "$real")" "$real/glossary.json" "$real/posts.jsonl" "$real/labels.jsonl" \
      exact normalised glossa alias exact+alias
    compared_real=1
  fi
done
if [ "$compared_real" = 0 ]; then
  echo "real       (no target/real-data/CORPUS: run bash bench/real.sh first to compare there too)"
fi
[ "$same" = 1 ] && echo "identical" || { echo "not identical"; exit 1; }
