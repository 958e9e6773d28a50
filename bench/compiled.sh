#!/usr/bin/env bash
# Compiled glossaries (issue 33 item 1). For synthetic glossaries of 10k,
# 100k and 1M entries (bench/gen_workload.rs), prints, the fastest of
# REPEAT runs each (/usr/bin/time: wall s, user + system s, peak RSS):
#   - `glossa compile`: building the compiled file, as a new file and
#     replacing the file of the run before (the kernel frees the old
#     file's pages in the rename, on the clock);
#   - one post through `glossa translate` (offline provider, default
#     retriever) from the compiled file, whole process;
#   - the same in memory (`--compiled never`: parse the JSON, build every
#     index), unless the size is above IN_MEMORY_MAX (default 100000);
#   - at 100k entries, POSTS posts (default 2000) through
#     `glossa translate --posts` both ways: posts per second, whole process;
#   - `glossa eval -r glossa` of EVAL_POSTS labelled posts (default 100)
#     from the compiled file (`--index`), and in memory up to IN_MEMORY_MAX: the
#     results are compared (timings aside).
#   bash bench/compiled.sh [SIZES...]      # default: 10000 100000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
POSTS=${POSTS:-2000}
EVAL_POSTS=${EVAL_POSTS:-100}
IN_MEMORY_MAX=${IN_MEMORY_MAX:-100000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
cargo build --release --quiet --bin glossa --example gen_workload
dir=${CARGO_TARGET_DIR:-target}/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fastest of REPEAT runs of the command: "wall user sys rss_kb";
# $BEFORE, when set, is run before each (untimed).
fastest() {
  local best="" wall user sys rss
  for ((i = 0; i < REPEAT; i++)); do
    [ -z "${BEFORE:-}" ] || eval "$BEFORE"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" \
      || { cat "$work/err" >&2; exit 1; }
    read -r wall user sys rss <"$work/time"
    if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best="$wall $user $sys $rss"
    fi
  done
  echo "$best"
}

show() { # label "wall user sys rss"
  read -r wall user sys rss <<<"$2"
  awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
    'BEGIN { printf "  %-34s %6.2f s wall, %6.2f s user + %5.2f s system, peak RSS %5.0f MB\n", l, w, u, s, r / 1024 }'
}

for n in "${sizes[@]}"; do
  "$dir/examples/gen_workload" "$work/n$n" "$n" "$POSTS" 42 >/dev/null
  g="$work/n$n/glossary.json"
  cache="$work/cache$n"
  term=$(grep -o '"source": "[^"]*"' "$g" | sed -n '2p' | cut -d'"' -f4)
  post="Fresh ${term}s today: our new loaves come out of the oven at four."
  echo "== $n entries ($(du -h "$g" | cut -f1) of JSON); post: \"$post\""
  fresh="$work/fresh.glossa-index"
  show "compile, a new file" "$(BEFORE="rm -f '$fresh'" fastest "$dir/glossa" compile -g "$g" -o "$fresh")"
  show "compile, replacing the file" "$(fastest "$dir/glossa" compile -g "$g" --cache-dir "$cache")"
  echo "  compiled file: $(du -h "$cache"/compiled/*.glossa-index | cut -f1)"
  show "translate, compiled" "$(fastest "$dir/glossa" translate -g "$g" --cache-dir "$cache" \
    --compiled always --format json "$post")"
  cp "$work/out" "$work/compiled.json"
  if [ "$n" -le "$IN_MEMORY_MAX" ]; then
    show "translate, in memory" "$(fastest "$dir/glossa" translate -g "$g" --cache-dir "$cache" \
      --compiled never --format json "$post")"
    # The same entries, kinds and output both ways (timings aside).
    strip() { grep -v '"ms"' "$1"; }
    if ! diff <(strip "$work/compiled.json") <(strip "$work/out") >/dev/null; then
      echo "  DIFFERENT translate output compiled and in memory" >&2
      exit 1
    fi
  fi
  # gen_workload writes post sN on line N+1 of both files.
  head -n "$EVAL_POSTS" "$work/n$n/posts.jsonl" >"$work/eval_posts.jsonl"
  head -n "$EVAL_POSTS" "$work/n$n/labels.jsonl" >"$work/eval_labels.jsonl"
  eval_cmd=("$dir/glossa" eval -g "$g" -p "$work/eval_posts.jsonl" -l "$work/eval_labels.jsonl"
    -r glossa --format json --no-save)
  show "eval $EVAL_POSTS posts, compiled" "$(cd "$work" && fastest "${eval_cmd[@]}" \
    --index "$(ls "$cache"/compiled/*.glossa-index)")"
  cp "$work/out" "$work/eval_compiled.json"
  if [ "$n" -le "$IN_MEMORY_MAX" ]; then
    show "eval $EVAL_POSTS posts, in memory" "$(cd "$work" && fastest "${eval_cmd[@]}" --compiled never)"
    strip() { grep -v -e '"seconds"' -e 'posts_per_second' -e '"index_seconds"' "$1"; }
    if ! diff <(strip "$work/eval_compiled.json") <(strip "$work/out") >/dev/null; then
      echo "  DIFFERENT eval results compiled and in memory" >&2
      exit 1
    fi
  fi
  if [ "$n" = 100000 ]; then
    for mode in always never; do
      r=$(fastest "$dir/glossa" translate -g "$g" --cache-dir "$cache" --compiled "$mode" \
        --posts "$work/n$n/posts.jsonl" --no-cache -j 1 -o "$work/t_$mode.txt")
      read -r wall _ <<<"$r"
      show "$POSTS posts, --compiled $mode" "$r"
      awk -v p="$POSTS" -v w="$wall" 'BEGIN { printf "  %-34s %6.0f posts/s\n", "", p / w }'
    done
    cmp -s "$work/t_always.txt" "$work/t_never.txt" || { echo "  DIFFERENT translations" >&2; exit 1; }
  fi
done
