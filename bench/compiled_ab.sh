#!/usr/bin/env bash
# The compiled glossary, this build beside an earlier binary, in turn
# (README "A termbase-sized glossary": the before/after figures). For each
# size (synthetic glossaries of bench/gen_workload.rs), ROUNDS rounds of:
# `glossa compile` into a new file, one post through `translate` from it,
# `eval -r glossa` of EVAL_POSTS labelled posts from it, and at 100k
# entries POSTS posts through `translate --posts -j 1` from it; each line
# is one run (/usr/bin/time: user s, system s, peak RSS). The outputs of
# the two binaries are compared (timings aside): they must be the same.
#   bash bench/compiled_ab.sh OLD_GLOSSA [SIZES...]   # default 100000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "${1:?usage: bash bench/compiled_ab.sh OLD_GLOSSA [SIZES...]}")
shift
ROUNDS=${ROUNDS:-3}
POSTS=${POSTS:-2000}
EVAL_POSTS=${EVAL_POSTS:-100}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
cargo build --release --quiet --bin glossa --example gen_workload
dir=${CARGO_TARGET_DIR:-target}/release
new=$(realpath "$dir/glossa")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# `timed LABEL WHICH CMD...`: one run, its output kept in $work/WHICH.LABEL.
timed() {
  local label=$1 which=$2
  shift 2
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/$which.$label" 2>"$work/err" \
    || { cat "$work/err" >&2; exit 1; }
  read -r user sys rss <"$work/time"
  printf "  %-22s %-3s %6.2f s user + %5.2f s system, peak RSS %5.0f MB\n" \
    "$label" "$which" "$user" "$sys" "$((rss / 1024))"
}

for n in "${sizes[@]}"; do
  "$dir/examples/gen_workload" "$work/n$n" "$n" "$POSTS" 42 >/dev/null
  g="$work/n$n/glossary.json"
  term=$(grep -o '"source": "[^"]*"' "$g" | sed -n '2p' | cut -d'"' -f4)
  post="Fresh ${term}s today: our new loaves come out of the oven at four."
  head -n "$EVAL_POSTS" "$work/n$n/posts.jsonl" >"$work/eval_posts.jsonl"
  head -n "$EVAL_POSTS" "$work/n$n/labels.jsonl" >"$work/eval_labels.jsonl"
  echo "== $n entries"
  for ((r = 1; r <= ROUNDS; r++)); do
    for which in old new; do
      bin=$old
      [ "$which" = new ] && bin=$new
      index="$work/$which.glossa-index"
      rm -f "$index"
      timed compile "$which" "$bin" compile -g "$g" -o "$index"
      timed "translate one post" "$which" "$bin" translate -g "$g" --index "$index" \
        --format json "$post"
      timed "eval $EVAL_POSTS posts" "$which" "$bin" eval -g "$g" -p "$work/eval_posts.jsonl" \
        -l "$work/eval_labels.jsonl" -r glossa --format json --no-save --index "$index"
      if [ "$n" = 100000 ]; then
        timed "translate $POSTS posts" "$which" "$bin" translate -g "$g" --index "$index" \
          --posts "$work/n$n/posts.jsonl" --no-cache -j 1
      fi
    done
  done
  strip() { grep -v -e '"ms"' -e seconds -e posts_per_second "$1"; }
  for out in "translate one post" "eval $EVAL_POSTS posts" "translate $POSTS posts"; do
    [ -f "$work/old.$out" ] || continue
    diff <(strip "$work/old.$out") <(strip "$work/new.$out") >/dev/null \
      || { echo "  DIFFERENT output of $out" >&2; exit 1; }
  done
  echo "  outputs: the same"
done
