#!/usr/bin/env bash
# The official OpenAI Python SDK (PyPI `openai`, Apache-2.0), whose
# pydantic types are the reference for the field names `glossa batch`
# sends and reads (tests/it/batch_remote.rs runs .ci/openai_types.py with
# this venv's python).
#
#   bash .ci/openai_types.sh     # prints the venv's python (GLOSSA_OPENAI_PYTHON)
#
# Cached outside the clone, keyed by the version, built once per machine.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

OPENAI_VERSION=3.63.0
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
VENV="$CACHE/venv-openai-$OPENAI_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/openai.lock"
flock 9

if [ ! -f "$VENV/.complete" ]; then
  echo "== venv with openai $OPENAI_VERSION ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "openai==$OPENAI_VERSION" >&2
  touch "$VENV/.complete"
fi
echo "$VENV/bin/python"
