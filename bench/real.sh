#!/usr/bin/env bash
# Retrieval on real data nobody here wrote:
#   bash bench/real.sh
# The FreeDict English-French dictionary (Debian dict-freedict-eng-fra, GPL-2+,
# about 8,800 headwords) becomes a glossary; WordNet's quoted example
# sentences (Debian wordnet-base, WordNet licence; about 48,000) become posts;
# each post is labelled with the entries written in it as in the glossary
# (SPEC.md "v2: real glossaries", an independent Python implementation:
# bench/real_data.py). `glossa eval` (release build) then scores exact,
# glossa and normalised, and the script prints per retriever the recall on
# these verbatim terms and the entries per post that no run of the post's
# Snowball stems supports. Posts with no verbatim term are kept (they count
# in the per-post figures). Nothing is committed: the packages are installed
# and the data generated under $WORK (default target/real-data).
#   LIMIT=5000 bash bench/real.sh      # a stable sample of the posts
#   RETRIEVERS=exact,glossa bash bench/real.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-target/real-data}
LIMIT=${LIMIT:-0}
RETRIEVERS=${RETRIEVERS:-exact,glossa,normalised}
DICT=/usr/share/dictd/freedict-eng-fra
WORDNET=/usr/share/wordnet
mkdir -p "$WORK"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
[ -f "$DICT.index" ] || missing+=(dict-freedict-eng-fra)
[ -f "$WORDNET/data.noun" ] || missing+=(wordnet-base)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt-get install ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# snowballstemmer (PyPI) for the stem-support figure, in a venv of our own.
if [ ! -x "$WORK/venv/bin/python" ] || ! "$WORK/venv/bin/python" -c 'import snowballstemmer' 2>/dev/null; then
  echo "== pip install snowballstemmer (venv in $WORK/venv)" >&2
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q snowballstemmer
fi
py="$WORK/venv/bin/python"

cargo build --release --quiet --bin glossa
bin=target/release/glossa

limit_args=()
if [ "$LIMIT" -gt 0 ]; then limit_args=(--limit "$LIMIT"); fi
"$py" bench/real_data.py glossary "$DICT.index" "$DICT.dict.dz" "$WORK/glossary.json"
"$py" bench/real_data.py posts "$WORDNET" "$WORK/posts.jsonl" "${limit_args[@]}"
"$py" bench/real_data.py labels "$WORK/glossary.json" "$WORK/posts.jsonl" data/stopwords-en.txt "$WORK/labels.jsonl"

"$bin" eval -g "$WORK/glossary.json" -p "$WORK/posts.jsonl" -l "$WORK/labels.jsonl" \
  --retriever "$RETRIEVERS" --no-save --per-post off --per-post-jsonl "$WORK/per-post.jsonl" \
  --format json >"$WORK/eval.json"
echo
"$py" bench/real_data.py report "$WORK/glossary.json" "$WORK/posts.jsonl" "$WORK/labels.jsonl" "$WORK/per-post.jsonl"
