#!/usr/bin/env bash
# Retrieval on real data nobody here wrote:
#   bash bench/real.sh
# Four corpora, each a real glossary over real English:
#  - wordnet: the FreeDict English-French dictionary (Debian
#    dict-freedict-eng-fra, GPL-2+, about 8,800 headwords) as the glossary,
#    WordNet's quoted example sentences (Debian wordnet-base, WordNet licence;
#    about 48,000) as posts;
#  - foldoc: FOLDOC, the Free On-line Dictionary of Computing (Debian
#    dict-foldoc, GFDL; about 24,000 headwords: acronyms, versions,
#    punctuation, long names) as a termbase, the 37,000 sentences of its own
#    definitions as posts (technical text full of names and abbreviations
#    that no word list holds);
#  - cross: the FreeDict glossary over FOLDOC's sentences: a general
#    glossary on technical text, whose jargon is neither glossary nor
#    dictionary words (what typo tiers must leave alone);
#  - novel: a novel in translation. The names of Pride and Prejudice (a
#    translator's list, mined from the text: "Mr. Darcy", "Rosings
#    Park", "Lady Catherine de Bourgh") and FreeDict English-German (Debian
#    dict-freedict-eng-deu, about 366,000 entries) as the glossary, the
#    28,500 sentences of Jane Austen's six novels (Debian
#    r-cran-janeaustenr, public domain; its .deb unpacked, R not needed)
#    as posts: the other five novels' people and places are in no glossary
#    ("Knightley", "Dashwood", "Hartfield").
# Each post is labelled with the entries written in it as in the glossary
# (docs/formats.md "v2: real glossaries", an independent Python implementation:
# bench/real_data.py), except those written only inside a longer such term
# whose target conflicts ("miss" -> Fehlschuss inside "Miss Bennet"), which
# are labelled wrong_sense (docs/formats.md, `longest`). `glossa eval` (release build) then scores exact,
# glossa and normalised, and the script prints per retriever the recall on
# these verbatim terms and the entries per post that no run of the post's
# Snowball stems supports (snowballstemmer from PyPI), by kind of match.
# Posts with no verbatim term are kept (they count in the per-post
# figures). Nothing is committed: the packages are installed and the data
# generated under $WORK (default target/real-data).
#   LIMIT=5000 bash bench/real.sh      # a stable sample of each corpus's posts
#   CORPORA=foldoc RETRIEVERS=exact,glossa bash bench/real.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-target/real-data}
LIMIT=${LIMIT:-0}
RETRIEVERS=${RETRIEVERS:-exact,glossa,normalised}
CORPORA=${CORPORA:-wordnet foldoc cross novel}
DICT=/usr/share/dictd/freedict-eng-fra
DICT_DEU=/usr/share/dictd/freedict-eng-deu
FOLDOC=/usr/share/dictd/foldoc
WORDNET=/usr/share/wordnet
mkdir -p "$WORK"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
[ -f "$DICT.index" ] || missing+=(dict-freedict-eng-fra)
[ -f "$WORDNET/data.noun" ] || missing+=(wordnet-base)
[ -f "$FOLDOC.index" ] || missing+=(dict-foldoc)
case " $CORPORA " in *" novel "*) [ -f "$DICT_DEU.index" ] || missing+=(dict-freedict-eng-deu) ;; esac
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt-get install ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# snowballstemmer (PyPI) for the stem-support figure, in a venv of our own;
# pinned, as Snowball's English rules change between releases (3.x keeps
# "internal" whole, rust-stemmers' older rules make it "intern").
STEMMER=snowballstemmer==3.1.1
# (sed, not grep -q: an early exit would fail pip's write under pipefail.)
installed=$("$WORK/venv/bin/pip" show snowballstemmer 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ "$installed" != 3.1.1 ]; then
  echo "== pip install $STEMMER (venv in $WORK/venv)" >&2
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q "$STEMMER"
fi
py="$WORK/venv/bin/python"

cargo build --release --quiet --bin glossa
bin=target/release/glossa

limit_args=()
if [ "$LIMIT" -gt 0 ]; then limit_args=(--limit "$LIMIT"); fi
for corpus in $CORPORA; do
  dir="$WORK/$corpus"
  mkdir -p "$dir"
  echo
  case "$corpus" in
    wordnet)
      echo "== wordnet: FreeDict eng-fra over WordNet's example sentences"
      "$py" bench/real_data.py glossary "$DICT.index" "$DICT.dict.dz" "$dir/glossary.json"
      "$py" bench/real_data.py posts "$WORDNET" "$dir/posts.jsonl" "${limit_args[@]}" ;;
    foldoc)
      echo "== foldoc: FOLDOC's headwords over the sentences of its definitions"
      "$py" bench/real_data.py foldoc "$FOLDOC.index" "$FOLDOC.dict.dz" "$dir/glossary.json" "$dir/posts.jsonl" "${limit_args[@]}" ;;
    cross)
      echo "== cross: FreeDict eng-fra over FOLDOC's sentences (a general glossary on technical text)"
      "$py" bench/real_data.py glossary "$DICT.index" "$DICT.dict.dz" "$dir/glossary.json"
      "$py" bench/real_data.py foldoc "$FOLDOC.index" "$FOLDOC.dict.dz" "$dir/foldoc-glossary.json" "$dir/posts.jsonl" "${limit_args[@]}" ;;
    novel)
      echo "== novel: Pride and Prejudice's names and FreeDict eng-deu over Jane Austen's six novels"
      "$py" bench/real_data.py novel "$(bash bench/austen.sh)" "$DICT_DEU.index" "$DICT_DEU.dict.dz" "$dir/glossary.json" "$dir/posts.jsonl" "${limit_args[@]}" ;;
    *) echo "unknown corpus '$corpus' (wordnet, foldoc, cross, novel)" >&2; exit 2 ;;
  esac
  "$py" bench/real_data.py labels "$dir/glossary.json" "$dir/posts.jsonl" data/stopwords-en.txt "$dir/labels.jsonl"
  "$bin" eval -g "$dir/glossary.json" -p "$dir/posts.jsonl" -l "$dir/labels.jsonl" \
    --retriever "$RETRIEVERS" --no-save --per-post off --per-post-jsonl "$dir/per-post.jsonl" \
    --format json >"$dir/eval.json"
  echo
  "$py" bench/real_data.py report "$dir/glossary.json" "$dir/posts.jsonl" "$dir/labels.jsonl" "$dir/per-post.jsonl"
done
