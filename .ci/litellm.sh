#!/usr/bin/env bash
# LiteLLM's proxy (PyPI `litellm[proxy]`, MIT), a real OpenAI-compatible
# gateway that serves /v1/files and /v1/batches: tests/it/batch_remote.rs
# puts it between `glossa batch` and the 127.0.0.1 batch mock (its
# files_settings pass files and batches through to the mock's api_base;
# no database, no internet: a master key, LITELLM_LOCAL_MODEL_COST_MAP).
#
#   bash .ci/litellm.sh     # prints the `litellm` executable (GLOSSA_LITELLM)
#
# Cached outside the clone, keyed by the version, built once per machine
# (about 80 s of pip on a 2-core machine). 1.106.12 because the newest
# releases' `proxy` extra asks for packages the registry does not have.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

LITELLM_VERSION=1.106.12
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
VENV="$CACHE/litellm-$LITELLM_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/litellm.lock"
flock 9

if [ ! -f "$VENV/.complete" ]; then
  echo "== venv with litellm[proxy] $LITELLM_VERSION ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "litellm[proxy]==$LITELLM_VERSION" >&2
  touch "$VENV/.complete"
fi
echo "$VENV/bin/litellm"
