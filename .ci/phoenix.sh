#!/usr/bin/env bash
# Arize Phoenix, a real OpenTelemetry trace viewer, for tests/it/telemetry.rs:
#   bash .ci/phoenix.sh start   # prints its URL (OTLP/HTTP at URL/v1/traces)
#   bash .ci/phoenix.sh stop
# Installed from PyPI once per machine into ~/.cache/glossa-ci/phoenix-VERSION
# (a few minutes the first time, nothing afterwards); data in a temp folder.
set -euo pipefail
VERSION=20.26.1
PORT=${GLOSSA_PHOENIX_PORT:-6006}
venv=${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}/phoenix-$VERSION
work=${TMPDIR:-/tmp}/glossa-phoenix
pidfile=$work/phoenix.pid

stop() {
  if [ -f "$pidfile" ]; then
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

start() {
  # The stamp is written last: a half-made venv is made again.
  if [ ! -f "$venv/.installed" ]; then
    echo "== pip install arize-phoenix==$VERSION (once per machine)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "arize-phoenix==$VERSION" >&2
    touch "$venv/.installed"
  fi
  stop
  rm -rf "$work"
  mkdir -p "$work"
  PHOENIX_WORKING_DIR="$work" PHOENIX_HOST=127.0.0.1 PHOENIX_PORT="$PORT" \
    PHOENIX_GRPC_PORT=$((PORT + 1)) PHOENIX_TELEMETRY_ENABLED=false \
    nohup "$venv/bin/phoenix" serve >"$work/phoenix.log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then
      echo "http://127.0.0.1:$PORT"
      return 0
    fi
    sleep 1
  done
  echo "Phoenix did not start; its log:" >&2
  tail -20 "$work/phoenix.log" >&2
  return 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
  echo "usage: bash .ci/phoenix.sh start|stop" >&2
  exit 2
  ;;
esac
