#!/bin/sh
# Installs the locked dependencies on a fresh clone so that `npm start` and `npm test` work alone.
# Quietly: npm warns about the engine (Node.js 24) on an older machine Node, which the bundled
# Node.js 24 (scripts/node24.sh) replaces; errors still show.
set -e
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing dependencies (first start: a minute or two)…"
  npm ci --no-audit --no-fund --loglevel=error
fi
