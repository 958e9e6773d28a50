#!/usr/bin/env bash
# Real glossaries and termbases written by others, for tests/it/import_real.rs
# (issue 32 item 4): the glossary test data of Weblate's source release on
# PyPI (weblate/trans/tests/data, GPL-3.0-or-later by Weblate's REUSE.toml),
# taken as they are:
#   terms.tbx                 165 English-Czech entries, written by KDE Lokalize
#   cs.tbx                    written by translate-toolkit (a forbidden term, a
#                             one-language entry, notes)
#   fr-extended-metadata.tbx  TBX 2008 with a namespace, obsolete/admitted terms
#   terms.csv                 the same Czech glossary as a headerless CSV
#   terms-header.csv          the same with a `source,target` header
#   ja.xlsx, fr.xlsx          Excel workbooks of translate-toolkit's columns
# plus Weblate's licence files. Not committed (GPL): fetched, pinned by
# version and SHA-256.
#
#   bash .ci/termfiles.sh     # prints the folder (GLOSSA_TERMFILES)
#
# Cached outside the clone, keyed by the version; a second run prints the
# folder at once. Two runs at a time fetch once: the second waits on a lock.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

WEBLATE_VERSION=2026.10.1
WEBLATE_SHA256=2da6d85241de0d26d759ead1736b0d1d0b1feac85fb4cd2462e8d2c8c851b4f4
FILES="terms.tbx cs.tbx fr-extended-metadata.tbx terms.csv terms-header.csv ja.xlsx fr.xlsx"
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
OUT="$CACHE/termfiles-weblate-$WEBLATE_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/termfiles.lock"
flock 9

if [ ! -f "$OUT/.complete" ] || [ "$(cat "$OUT/.complete")" != "$FILES" ]; then
  echo "== Weblate $WEBLATE_VERSION glossary test data ($OUT)" >&2
  rm -rf "$OUT" "$OUT.tmp"
  mkdir -p "$OUT.tmp/sdist"
  # The source release (the wheel has no tests); its Python requirement is
  # newer than this machine's, which a download does not need.
  python3 -m pip download --quiet --no-deps --no-binary weblate --python-version 3.13 \
    "weblate==$WEBLATE_VERSION" -d "$OUT.tmp/sdist" >&2
  sdist="$OUT.tmp/sdist/weblate-$WEBLATE_VERSION.tar.gz"
  echo "$WEBLATE_SHA256  $sdist" | sha256sum --check --quiet >&2
  python3 - "$sdist" "$OUT.tmp" "weblate-$WEBLATE_VERSION" $FILES <<'EOF'
import shutil, sys, tarfile
sdist, out, root, *files = sys.argv[1:]
with tarfile.open(sdist) as tar:
    members = [f"{root}/weblate/trans/tests/data/{f}" for f in files]
    members += [f"{root}/LICENSE", f"{root}/REUSE.toml"]
    for name in members:
        with tar.extractfile(name) as src, open(f"{out}/{name.rsplit('/', 1)[1]}", "wb") as dst:
            shutil.copyfileobj(src, dst)
EOF
  rm -rf "$OUT.tmp/sdist"
  echo "$FILES" >"$OUT.tmp/.complete"
  mv "$OUT.tmp" "$OUT"
fi
flock -u 9
echo "$OUT"
