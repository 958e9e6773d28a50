#!/usr/bin/env bash
# The study's experiment on a real model, through any OpenAI-compatible
# server: the café demo's 24 labelled posts, retrieved by exact,
# normalised+fuzzy and the oracle (the needed entries, from the labels),
# translated by the model and checked; `glossa run` prints the table.
#
#   bash bench/real_model.sh BASE_URL [MODEL]
#   bash .ci/llama-server.sh start                       # SmolLM2-135M on llama.cpp (CI's)
#   bash bench/real_model.sh http://127.0.0.1:18763/v1 smollm2-135m
#   bash bench/real_model.sh http://127.0.0.1:11434/v1 llama3.2      # Ollama
#   bash bench/real_model.sh http://127.0.0.1:8000/v1 Qwen/Qwen2.5-7B-Instruct   # vLLM
#   OPENAI_API_KEY=... bash bench/real_model.sh https://api.openai.com/v1 gpt-4o-mini
#
# Settings (environment):
#   REPEAT=1        runs per (retriever, post); at temperature 0 with a seed
#                   the repeats are one sample (glossa warns): measure
#                   variation with REPEAT=3 TEMPERATURE=0.8 SEED=
#   TEMPERATURE=0   SEED=7 (empty: not sent)
#   MAX_TOKENS=     empty: glossa's default cap from each post's length
#                   (docs/models.md); a number, or `none`
#   REPAIR=0        check-and-repair turns (--repair): with 1 the table gives
#                   posts right at the first pass beside after repair
#   JOBS=1          calls in flight (a local server on a small machine
#                   answers one at a time anyway)
#   OUT=runs/<UTC timestamp>_real_model_<model>   the run folder
#   GLOSSA=         a glossa binary (default: the release build, built here)
# Replies are cached in runs/cache as for any run (NO_CACHE=1 to bypass):
# running it again prints the same table without calling the model.
# Exit codes: 0 the table was printed (failed calls, such as replies cut
# off by the token limit, are counted in it), 2 bad input, 130 interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
URL=${1:?usage: bash bench/real_model.sh BASE_URL [MODEL]}
MODEL=${2:-smollm2-135m}
REPEAT=${REPEAT:-1}
TEMPERATURE=${TEMPERATURE-0}
SEED=${SEED-7}
MAX_TOKENS=${MAX_TOKENS:-}
JOBS=${JOBS:-1}
REPAIR=${REPAIR:-0}
OUT=${OUT:-runs/$(date -u +%Y%m%dT%H%M%SZ)_real_model_$(echo "$MODEL" | tr -c 'A-Za-z0-9.\n-' '_')}

if [ -z "${GLOSSA:-}" ]; then
  cargo build --release --quiet
  GLOSSA=target/release/glossa
  if [ -n "${CARGO_TARGET_DIR:-}" ]; then GLOSSA="$CARGO_TARGET_DIR/release/glossa"; fi
fi

args=(run --retriever exact,normalised+fuzzy,oracle --repeat "$REPEAT"
  --provider openai --base-url "$URL" --model "$MODEL" -j "$JOBS" --repair "$REPAIR" --out "$OUT")
[ -n "$TEMPERATURE" ] && args+=(--temperature "$TEMPERATURE")
[ -n "$SEED" ] && args+=(--seed "$SEED")
[ -n "$MAX_TOKENS" ] && args+=(--max-tokens "$MAX_TOKENS")
[ -n "${NO_CACHE:-}" ] && args+=(--no-cache)

echo "== glossa ${args[*]}" >&2
started=$(date +%s)
set +e
"$GLOSSA" "${args[@]}"
code=$?
set -e
echo "== $(( $(date +%s) - started )) s; calls in $OUT/calls.jsonl" >&2
case $code in
  0) ;;
  1) echo "some calls failed (cut off by the token limit, or an error): counted in the table; see $OUT/calls.jsonl" >&2 ;;
  *) exit "$code" ;;
esac
