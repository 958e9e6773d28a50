#!/usr/bin/env bash
# glossa's `exact` beside an Aho-Corasick peer on the same job (README
# "Speed", `exact` beside an automaton): read a glossary and posts, find
# every source written in each post with word boundaries, write each post's
# entries. For synthetic glossaries of 10k and 100k entries and POSTS posts
# (bench/gen_workload.rs, seed 42):
#
# 1. the peer (bench/aho_peer.rs: the aho-corasick crate, overlapping
#    matches, ends checked) and bench/exact_loop.rs (glossa's `exact`, the
#    same input and output code) must write the same lines, and these must
#    be the (post, entry) pairs of `glossa eval --retriever exact`;
# 2. the query loop only (posts in memory to the lines in a buffer, index
#    build excluded), as each program prints it: the two run in turn,
#    REPEAT times each, median seconds and the median of the pairs' ratios;
# 3. the whole process (/usr/bin/time, wall seconds, median of REPEAT runs
#    taken in turn): `glossa eval --retriever exact --threads 1
#    --per-post-jsonl FILE` (which also reads the labels and scores each
#    post), exact_loop and the peer, each with its peak RSS.
#
#   bash bench/aho.sh            # POSTS=100000 REPEAT=5 SIZES="10000 100000"
set -euo pipefail
cd "$(dirname "$0")/.."
POSTS=${POSTS:-100000}
REPEAT=${REPEAT:-5}
SIZES=${SIZES:-10000 100000}
cargo build --release --quiet --bin glossa --example gen_workload --example aho_peer --example exact_loop
target=${CARGO_TARGET_DIR:-target}/release
bin=$target/glossa
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# whole CMD... -> "wall_s rss_kb" of one run, its output thrown away
whole() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1
  cat "$work/time"
}

printf '%-8s %-34s %10s %10s %10s\n' entries "" glossa peer "glossa/peer"
for n in $SIZES; do
  dir=$work/n$n
  "$target/examples/gen_workload" "$dir" "$n" "$POSTS" 42
  g=$dir/glossary.json p=$dir/posts.jsonl l=$dir/labels.jsonl

  # 1. The same matches.
  "$target/examples/aho_peer" "$g" "$p" >"$work/peer.tsv" 2>/dev/null
  "$target/examples/exact_loop" "$g" "$p" >"$work/exact.tsv" 2>/dev/null
  "$bin" eval -g "$g" -p "$p" -l "$l" -r exact --threads 1 --no-save --per-post-jsonl "$work/pp.jsonl" >/dev/null 2>&1
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    for e in r["retrieved"]:
        print(r["post"] + "\t" + e)' "$work/pp.jsonl" >"$work/eval.tsv"
  cmp -s "$work/peer.tsv" "$work/exact.tsv" || { echo "aho.sh: the peer and exact_loop differ at $n entries" >&2; exit 1; }
  cmp -s <(sort "$work/exact.tsv") <(sort "$work/eval.tsv") || { echo "aho.sh: exact_loop and glossa eval differ at $n entries" >&2; exit 1; }
  pairs=$(wc -l <"$work/peer.tsv")

  # 2. The query loop, in turn.
  : >"$work/loops"
  for ((i = 0; i < REPEAT; i++)); do
    a=$("$target/examples/exact_loop" "$g" "$p" 2>&1 >/dev/null | sed 's/.*loop \([0-9.]*\) s.*/\1/')
    b=$("$target/examples/aho_peer" "$g" "$p" 2>&1 >/dev/null | sed 's/.*loop \([0-9.]*\) s.*/\1/')
    echo "$a $b" >>"$work/loops"
  done
  ga=$(awk '{ print $1 }' "$work/loops" | median)
  pb=$(awk '{ print $2 }' "$work/loops" | median)
  ratio=$(awk '{ print $2 / $1 }' "$work/loops" | median)
  awk -v n="$n" -v a="$ga" -v b="$pb" -v r="$ratio" -v p="$POSTS" -v m="$pairs" \
    'BEGIN { printf "%-8d %-34s %9.3fs %9.3fs %9.2fx faster  (%d posts, %d pairs found, the same)\n", n, "query loop", a, b, r, p, m }'

  # 3. The whole process, in turn.
  : >"$work/eval" ; : >"$work/exact" ; : >"$work/peer"
  for ((i = 0; i < REPEAT; i++)); do
    whole "$bin" eval -g "$g" -p "$p" -l "$l" -r exact --threads 1 --no-save --per-post-jsonl "$work/pp.jsonl" >>"$work/eval"
    whole "$target/examples/exact_loop" "$g" "$p" >>"$work/exact"
    whole "$target/examples/aho_peer" "$g" "$p" >>"$work/peer"
  done
  pw=$(awk '{ print $1 }' "$work/peer" | median); pm=$(awk '{ print $2 }' "$work/peer" | median)
  for which in eval exact; do
    w=$(awk '{ print $1 }' "$work/$which" | median); m=$(awk '{ print $2 }' "$work/$which" | median)
    label=$([ "$which" = eval ] && echo "whole process: glossa eval -r exact" || echo "whole process: exact_loop")
    awk -v n="$n" -v l="$label" -v a="$w" -v b="$pw" -v m="$m" -v pm="$pm" \
      'BEGIN { printf "%-8d %-34s %9.2fs %9.2fs %9.2fx faster  (peak RSS %d MB vs %d MB)\n", n, l, a, b, b / a, m / 1024, pm / 1024 }'
  done
done
