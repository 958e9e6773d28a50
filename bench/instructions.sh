#!/usr/bin/env bash
# Instructions (valgrind cachegrind's Ir, which does not wander with the
# machine's load) of `glossa eval --retriever glossa --threads 1` at 100k
# entries: building the indexes (one post) and scoring 2,000 posts.
# Installs valgrind if missing.   bash bench/instructions.sh [RETRIEVER]
set -euo pipefail
cd "$(dirname "$0")/.."
retriever=${1:-glossa}
if ! command -v valgrind >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi
cargo build --release --quiet --bin glossa --example gen_workload
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_workload "$work" 100000 2000 42
head -n 1 "$work/posts.jsonl" >"$work/one-post.jsonl"
head -n 1 "$work/labels.jsonl" >"$work/one-label.jsonl"
ir() { # POSTS LABELS -> instructions
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    target/release/glossa eval -g "$work/glossary.json" -p "$1" -l "$2" --retriever "$retriever" \
    --threads 1 --no-save --per-post off 2>&1 >/dev/null | awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}
start=$(ir "$work/one-post.jsonl" "$work/one-label.jsonl")
all=$(ir "$work/posts.jsonl" "$work/labels.jsonl")
awk -v s="$start" -v a="$all" -v r="$retriever" 'BEGIN {
  printf "%s at 100k entries: start-up and indexes %.2f G instructions; %.0f k instructions per post\n", r, s / 1e9, (a - s) / 2000 / 1e3 }'
