#!/usr/bin/env bash
# Real published translations for tests/it/segments_real.rs (issue 31 item
# 6): Django's gettext catalogues (PyPI wheel, BSD licence) in ten
# languages, each converted by translate-toolkit (PyPI) to XLIFF 1.1
# (po2xliff) and TMX 1.4 (po2tmx), plus, for every file, the segments
# translate-toolkit's own parsers read from it (.ci/segments_expected.py),
# as an independent answer for glossa's readers.
#
#   bash .ci/catalogues.sh     # prints the folder (GLOSSA_CATALOGUES)
#
# Cached outside the clone, keyed by the versions, built once per machine
# (about a minute; a second run prints the folder at once). Two runs at a
# time build once: the second waits on a lock.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

DJANGO_VERSION=5.2.19
TOOLKIT_VERSION=3.20.4
LANGS="de fr cs ar hi ja zh_Hans ru th sw"
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
OUT="$CACHE/catalogues-django-$DJANGO_VERSION-translate-toolkit-$TOOLKIT_VERSION"
VENV="$CACHE/venv-translate-toolkit-$TOOLKIT_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/catalogues.lock"
flock 9

if [ ! -f "$VENV/.complete" ]; then
  echo "== venv with translate-toolkit $TOOLKIT_VERSION ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "translate-toolkit==$TOOLKIT_VERSION" >&2
  touch "$VENV/.complete"
fi

# The expected files depend on the script that writes them and the languages too.
STAMP="$( (cat "$HERE/segments_expected.py"; echo "$LANGS") | sha256sum | cut -c1-16)"
if [ ! -f "$OUT/.complete" ] || [ "$(cat "$OUT/.complete")" != "$STAMP" ]; then
  echo "== Django $DJANGO_VERSION catalogues to XLIFF and TMX ($OUT)" >&2
  rm -rf "$OUT" "$OUT.tmp"
  mkdir -p "$OUT.tmp/wheel"
  "$VENV/bin/pip" download --quiet --no-deps "Django==$DJANGO_VERSION" -d "$OUT.tmp/wheel" >&2
  wheel="$(find "$OUT.tmp/wheel" -iname 'django-*.whl' | head -n 1)"
  for lang in $LANGS; do
    dir="$OUT.tmp/$lang"
    mkdir -p "$dir"
    "$VENV/bin/python" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
      "$wheel" "django/conf/locale/$lang/LC_MESSAGES/django.po" >"$dir/django.po"
    (
      cd "$dir"
      "$VENV/bin/po2xliff" --progress=none django.po django.xlf >&2
      "$VENV/bin/po2tmx" --progress=none -l "${lang//_/-}" django.po django.tmx >&2
      for f in django.po django.xlf django.tmx; do
        "$VENV/bin/python" "$HERE/segments_expected.py" "$f" "$f.expected.jsonl" >&2
      done
    )
  done
  rm -rf "$OUT.tmp/wheel"
  echo "$STAMP" >"$OUT.tmp/.complete"
  mv "$OUT.tmp" "$OUT"
fi
flock -u 9
echo "$OUT"
