#!/usr/bin/env bash
# Criterion, old against new, alternating: builds the retrieval bench
# (benches/retrieval.rs) at OLD_COMMIT (in a git worktree under
# target/ab/, sharing this tree's target directory, the old binary copied
# aside) and in the working tree, then runs one criterion benchmark
# with each binary in turn, PAIRS times, and prints each run's throughput.
# Alternating is what makes two binaries comparable on a machine whose
# speed wanders by a fifth from run to run (README "Speed", sixth round).
#
#   bash bench/ab.sh OLD_COMMIT "exact at 100k entries" [PAIRS=4]
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bash bench/ab.sh OLD_COMMIT BENCHMARK [PAIRS]}
filter=${2:?usage: bash bench/ab.sh OLD_COMMIT BENCHMARK [PAIRS]}
pairs=${3:-4}
commit=$(git rev-parse --verify "$old^{commit}")
tree=target/ab/$commit
if [ ! -d "$tree" ]; then
  git worktree add --detach "$tree" "$commit" >/dev/null
fi
target=$PWD/target
# The bench executable that `cargo bench --no-run` builds in directory $1
# (both trees build into one target directory: the dependencies are built
# once, and the executable's name is the same, hence the copy).
bench_binary() {
  (cd "$1" && CARGO_TARGET_DIR=$target cargo bench --bench retrieval --no-run --message-format=json 2>/dev/null) |
    grep -o '"executable":"[^"]*/retrieval-[^"]*"' | tail -n 1 | cut -d'"' -f4
}
old_bin=$target/ab/retrieval-$commit
built=$(bench_binary "$tree")
[ -x "$built" ] || { echo "ab.sh: the bench did not build at $commit" >&2; exit 1; }
cp "$built" "$old_bin"
new_bin=$(bench_binary .)
[ -x "$new_bin" ] || { echo "ab.sh: the bench did not build" >&2; exit 1; }
echo "old ${commit:0:7}: $old_bin"
echo "new (working tree): $new_bin"
# Criterion's middle estimate of the throughput, in elements (posts) per second.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
  local thrpt
  thrpt=$( (cd "$work" && "$1" --bench "$filter" --noplot 2>&1) |
    grep -A2 "^retrieval/$filter" | grep -m1 thrpt | sed 's/.*\[//; s/\]//' | awk '{print $3, $4}')
  [ -n "$thrpt" ] || { echo "ab.sh: no benchmark \"$filter\" in $1" >&2; exit 1; }
  echo "$thrpt"
}
for _ in $(seq "$pairs"); do
  old_thrpt=$(run "$old_bin")
  echo "old $old_thrpt"
  new_thrpt=$(run "$new_bin")
  echo "new $new_thrpt"
done
