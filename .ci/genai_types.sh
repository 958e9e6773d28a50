#!/usr/bin/env bash
# The official Google Gen AI Python SDK (PyPI `google-genai`, Apache-2.0),
# whose pydantic types and request converters are the reference for the
# field names `glossa batch` sends to Gemini and reads back
# (tests/it/batch_gemini.rs runs .ci/genai_types.py with this venv's python).
#
#   bash .ci/genai_types.sh     # prints the venv's python (GLOSSA_GENAI_PYTHON)
#
# Cached outside the clone, keyed by the version, built once per machine.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

GENAI_VERSION=3.6.1
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
VENV="$CACHE/venv-genai-$GENAI_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/genai.lock"
flock 9

if [ ! -f "$VENV/.complete" ]; then
  echo "== venv with google-genai $GENAI_VERSION ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "google-genai==$GENAI_VERSION" >&2
  touch "$VENV/.complete"
fi
echo "$VENV/bin/python"
