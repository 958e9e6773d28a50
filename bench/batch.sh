#!/usr/bin/env bash
# Batch throughput against a local mock OpenAI-compatible server that answers
# every call after a fixed delay: POSTS posts x 3 repeats at -j 32.
# Prints wall time against the ideal (calls x delay / concurrency) and the
# peak RSS, for POSTS=1000 and POSTS=250 (memory must not grow with posts).
#   bash bench/batch.sh            # defaults: delay 100 ms
set -euo pipefail
cd "$(dirname "$0")/.."
DELAY_MS=${DELAY_MS:-100}
CONCURRENCY=${CONCURRENCY:-32}
REPEAT=3
export DELAY_MS CONCURRENCY
cargo build --release --quiet --bin glossa --example mock_openai
work=$(mktemp -d)
trap 'kill $mock 2>/dev/null || true; rm -rf "$work"' EXIT

target/release/examples/mock_openai 127.0.0.1:0 "$DELAY_MS" >"$work/mock.out" &
mock=$!
for _ in $(seq 100); do grep -q listening "$work/mock.out" 2>/dev/null && break; sleep 0.05; done
addr=$(sed -n 's/^listening on //p' "$work/mock.out")

# POSTS copies of the café demo's posts and labels, with fresh ids.
make_suite() {
  local n=$1 i=0
  : >"$work/posts.jsonl"; : >"$work/labels.jsonl"
  mapfile -t demo_posts < posts/cafe.jsonl
  mapfile -t demo_labels < labels/cafe.jsonl
  while [ $i -lt "$n" ]; do
    local k=$((i % ${#demo_posts[@]}))
    echo "${demo_posts[$k]}" | sed "s/\"id\": \"p[0-9]*\"/\"id\": \"b$i\"/" >>"$work/posts.jsonl"
    echo "${demo_labels[$k]}" | sed "s/\"post\": \"p[0-9]*\"/\"post\": \"b$i\"/" >>"$work/labels.jsonl"
    i=$((i + 1))
  done
}

for posts in 1000 250; do
  make_suite "$posts"
  calls=$((posts * REPEAT))
  rm -rf "$work/run"
  start=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$work/rss" target/release/glossa run \
    --posts "$work/posts.jsonl" --labels "$work/labels.jsonl" --retriever normalised+fuzzy \
    --repeat $REPEAT --provider openai --base-url "http://$addr/v1" --model mock \
    --concurrency "$CONCURRENCY" --no-cache --out "$work/run" --format json >/dev/null
  end=$(date +%s%N)
  wall_ms=$(( (end - start) / 1000000 ))
  ideal_ms=$(( calls * DELAY_MS / CONCURRENCY ))
  lines=$(wc -l <"$work/run/calls.jsonl")
  awk -v p="$posts" -v c="$calls" -v l="$lines" -v w="$wall_ms" -v i="$ideal_ms" -v r="$(cat "$work/rss")" 'BEGIN {
    printf "%5d posts x 3 repeats = %5d calls (%d written) at -j %s, %s ms each: %.2f s (ideal %.2f s, %.2fx), peak RSS %.1f MB\n",
      p, c, l, ENVIRON["CONCURRENCY"], ENVIRON["DELAY_MS"], w / 1000, i / 1000, w / i, r / 1024 }'
done
