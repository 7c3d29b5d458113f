#!/bin/sh
# `npm start`: refuse at once when this directory's server already runs, install the locked
# dependencies on first use, build when the sources changed, then become the server.
set -e
cd "$(dirname "$0")/.."
node scripts/running-server.js
sh scripts/ensure-installed.sh
sh scripts/node24.sh scripts/build.js
exec sh scripts/node24.sh dist/apps/api/apps/api/src/main.js
