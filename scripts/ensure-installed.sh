#!/bin/sh
# Installs the locked dependencies on a fresh clone so that `npm start` and `npm test` work alone.
set -e
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=warn
fi
