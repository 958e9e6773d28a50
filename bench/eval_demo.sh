#!/usr/bin/env bash
# Wall time of `glossa eval` with all five retrievers on the bundled café
# demo (release build, nothing saved). Uses hyperfine when installed
# (apt-get install hyperfine), else times 50 runs itself.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/glossa
cmd="$bin eval --retriever all --no-save --format json"
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 5 --runs 50 -N --output=null "$cmd"
else
  runs=50
  start=$(date +%s%N)
  for _ in $(seq $runs); do $cmd >/dev/null; done
  end=$(date +%s%N)
  echo "glossa eval (all five retrievers, café demo): mean $(( (end - start) / runs / 1000 )) µs over $runs runs"
fi
