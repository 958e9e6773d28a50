#!/usr/bin/env bash
# Time and peak memory against post size, 8 KB to 1 MiB (the longest post
# allowed): retrieval must stay linear in post length (issue 30).
#   bash bench/post_size.sh
# Three posts per size, cut at a word from text repeated to length:
#  - cafe: the café demo posts (posts/cafe.jsonl), with the café glossary,
#    whose `cookie`, `date`, `roll` and `mint` have `context` phrases;
#  - dates: "Save the date for fresh dates and cookies." over and over, with
#    the café glossary: every sentence has matches inside a `context.not`
#    phrase (the post that took over 120 s at 1 MiB);
#  - prose: this repository's README and docs, with FreeDict English-German
#    (Debian dict-freedict-eng-deu, about 460,000 entries; made by
#    bench/real_data.py) as the glossary; skipped when the dictionary is not
#    installed (apt-get install dict-freedict-eng-deu).
# Each row is one whole process (glossary loading included) of
# `glossa retrieve` and of `glossa translate --provider offline` (retrieval,
# prompt, the offline substitution and the output check): wall, user and
# system seconds and peak RSS, from /usr/bin/time when it is there.
#   SIZES="8 128 1024" bash bench/post_size.sh     # sizes in KiB
#   BIN=path/to/glossa bash bench/post_size.sh     # another build
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-8 32 128 512 1024}
DICT_DEU=/usr/share/dictd/freedict-eng-deu
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin glossa
  BIN=${CARGO_TARGET_DIR:-target}/release/glossa
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" $SIZES <<'EOF'
import glob, json, sys
work, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
cafe = " ".join(json.loads(l)["text"] for l in open("posts/cafe.jsonl"))
prose = "\n".join(open(f, encoding="utf-8").read()
                  for f in ["README.md"] + sorted(glob.glob("docs/*.md")))
sources = {"cafe": cafe, "dates": "Save the date for fresh dates and cookies. ",
           "prose": prose}
for name, text in sources.items():
    for kb in sizes:
        n = kb * 1024
        data = (text + " ") * (n // len(text.encode()) + 1)
        cut = data.encode()[:n].decode("utf-8", "ignore")
        open(f"{work}/{name}-{kb}.txt", "w").write(cut[: cut.rfind(" ")])
EOF

glossaries=(cafe glossaries/cafe.json dates glossaries/cafe.json)
if [ -f "$DICT_DEU.index" ]; then
  python3 bench/real_data.py glossary "$DICT_DEU.index" "$DICT_DEU.dict.dz" "$work/deu.json" >&2
  glossaries+=(prose "$work/deu.json")
else
  echo "($DICT_DEU not installed: the prose rows are skipped)" >&2
fi

timed() { # prints "wall user sys rss_mb" of the command
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -n 1 |
      awk '{ printf "%7.2f %6.2f %6.2f %8.0f", $1, $2, $3, $4 / 1024 }'
  else
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%7.2f %6s %6s %8s", e - s, "-", "-", "-" }'
  fi
}

printf '%-6s %-9s %8s %7s %6s %6s %8s\n' post command KiB wall user sys "RSS MB"
for ((g = 0; g < ${#glossaries[@]}; g += 2)); do
  name=${glossaries[g]}
  glossary=${glossaries[g + 1]}
  for kb in $SIZES; do
    post="$work/$name-$kb.txt"
    printf '%-6s %-9s %8s %s\n' "$name" retrieve "$kb" \
      "$(timed "$BIN" retrieve -g "$glossary" -f json - <"$post")"
    printf '%-6s %-9s %8s %s\n' "$name" translate "$kb" \
      "$(timed "$BIN" translate -g "$glossary" --provider offline --file "$post")"
  done
done
