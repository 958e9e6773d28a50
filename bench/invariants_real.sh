#!/usr/bin/env bash
# Django's gettext catalogues (PyPI wheel, BSD licence): ~100 languages of
# human translations with placeholders and numbers, for the real-data test
# of the invariants check (tests/it/invariants.rs). The wheel is downloaded
# with pip and its locale folders unpacked into a cache outside the repo,
# keyed by version: ~/.cache/glossa-ci/django-VERSION (GLOSSA_CACHE moves
# it). Prints the folder that holds django/.
#   bash bench/invariants_real.sh
set -euo pipefail
version="${DJANGO_VERSION:-5.2.19}"
cache="${GLOSSA_CACHE:-$HOME/.cache/glossa-ci}"
dir="$cache/django-$version"
if [ ! -f "$dir/.complete" ]; then
  echo "== pip download django==$version (locale folders unpacked in $dir)" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download -q --no-deps --only-binary=:all: "django==$version" -d "$tmp" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  python3 - "$tmp" "$dir" <<'PY'
import glob, os, sys, zipfile
source, dest = sys.argv[1], sys.argv[2]
for wheel in glob.glob(os.path.join(source, "*.whl")):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if "/locale/" in name and name.endswith(".po"):
                z.extract(name, dest)
PY
  if [ -z "$(find "$dir" -name django.po -print -quit)" ]; then
    echo "error: no catalogue unpacked from the django $version wheel" >&2
    exit 1
  fi
  touch "$dir/.complete"
fi
echo "$dir"
