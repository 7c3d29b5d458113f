#!/usr/bin/env bash
# A local Citus cluster (a coordinator and two workers) ready for online shard moves, on top of
# ../shared/citus/cluster.sh: once created, each node gets wal_level = logical, Citus's output
# plugin trusted (output_plugin_libraries, where this PostgreSQL build has it) and more background
# workers, and the cluster restarts with them. Used by .ci/run's Citus step and bench/citus.js.
#
#   scripts/citus-cluster.sh start DIR PORT   # coordinator on PORT, workers on PORT+1, PORT+2
#   scripts/citus-cluster.sh stop DIR
#   → DATABASE_URL=postgresql://postgres@127.0.0.1:PORT/billing
set -euo pipefail
citus_sh="${CITUS_CLUSTER_SH:-$(cd "$(dirname "$0")/../.." && pwd)/shared/citus/cluster.sh}"
[ -f "$citus_sh" ] || { echo "citus-cluster: $citus_sh not found" >&2; exit 3; }
command=$1 dir=$2
case "$command" in
  start)
    port=$3
    bash "$citus_sh" start "$dir" billing "$port" 2 >/dev/null
    for node in "$port" $((port + 1)) $((port + 2)); do
      psql -h 127.0.0.1 -p "$node" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
        -c "ALTER SYSTEM SET wal_level = logical" -c "ALTER SYSTEM SET max_worker_processes = 16"
      if [ "$(psql -h 127.0.0.1 -p "$node" -U postgres -d postgres -qAt -c "SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'")" = 1 ]; then
        psql -h 127.0.0.1 -p "$node" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
          -c "ALTER SYSTEM SET output_plugin_libraries = pgoutput, test_decoding, citus"
      fi
    done
    bash "$citus_sh" stop "$dir" >/dev/null
    bash "$citus_sh" start "$dir" billing "$port" 2 >/dev/null
    ;;
  stop)
    bash "$citus_sh" stop "$dir" || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
