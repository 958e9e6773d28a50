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
#    build excluded), as each program prints it, in CPU seconds of its
#    thread (the wall clock of a shared machine also counts other
#    processes' turns; it is printed too): the two run in turn, REPEAT
#    times each; medians, and the median of the pairs' ratios;
# 3. the whole process (/usr/bin/time: CPU seconds, user + system, and
#    wall seconds; medians of REPEAT runs taken in turn): `glossa eval --retriever exact --threads 1
#    --per-post-jsonl FILE` (which also reads the labels, scores each post
#    and writes its JSON), exact_loop and the peer, each with its peak RSS.
# A ratio is the peer's time over glossa's: above 1, glossa is faster.
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

# whole CMD... -> "wall_s rss_kb cpu_s" of one run, its output thrown away
whole() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>&1
  awk '{ print $1, $2, $3 + $4 }' "$work/time"
}

printf '%-8s %-36s %10s %10s %10s\n' entries "" glossa peer "peer/glossa"
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

  # 2. The query loop, in turn: "wall cpu" of each.
  : >"$work/loops"
  loop() { "$@" 2>&1 >/dev/null | sed 's/.*loop \([0-9.]*\) s (cpu \([0-9.]*\) s).*/\1 \2/'; }
  for ((i = 0; i < REPEAT; i++)); do
    echo "$(loop "$target/examples/exact_loop" "$g" "$p") $(loop "$target/examples/aho_peer" "$g" "$p")" >>"$work/loops"
  done
  col() { awk -v c="$1" '{ print $c }' "$work/loops" | median; }
  awk -v n="$n" -v a="$(col 2)" -v b="$(col 4)" -v r="$(awk '{ print $4 / $2 }' "$work/loops" | median)" \
    -v aw="$(col 1)" -v bw="$(col 3)" -v p="$POSTS" -v m="$pairs" \
    'BEGIN { printf "%-8d %-36s %9.3fs %9.3fs %9.2fx   (wall %.3f s vs %.3f s; %d posts, %d pairs, the same)\n", n, "query loop, CPU", a, b, r, aw, bw, p, m }'

  # 3. The whole process, in turn.
  : >"$work/eval" ; : >"$work/exact" ; : >"$work/peer"
  for ((i = 0; i < REPEAT; i++)); do
    whole "$bin" eval -g "$g" -p "$p" -l "$l" -r exact --threads 1 --no-save --per-post-jsonl "$work/pp.jsonl" >>"$work/eval"
    whole "$target/examples/exact_loop" "$g" "$p" >>"$work/exact"
    whole "$target/examples/aho_peer" "$g" "$p" >>"$work/peer"
  done
  med() { awk -v c="$2" '{ print $c }' "$work/$1" | median; }
  for which in eval exact; do
    label=$([ "$which" = eval ] && echo "whole process, CPU: glossa eval" || echo "whole process, CPU: exact_loop")
    awk -v n="$n" -v l="$label" -v a="$(med "$which" 3)" -v b="$(med peer 3)" -v aw="$(med "$which" 1)" -v bw="$(med peer 1)" \
      -v m="$(med "$which" 2)" -v pm="$(med peer 2)" -v r="$(paste "$work/$which" "$work/peer" | awk '{ print $6 / $3 }' | median)" \
      'BEGIN { printf "%-8d %-36s %9.2fs %9.2fs %9.2fx   (wall %.2f s vs %.2f s; peak RSS %d MB vs %d MB)\n", n, l, a, b, r, aw, bw, m / 1024, pm / 1024 }'
done
done
