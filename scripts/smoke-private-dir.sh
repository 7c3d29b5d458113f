#!/usr/bin/env bash
# The README's `npm start` and `npm test` from a fresh copy inside a private (0700) directory,
# without DATABASE_URL: the embedded PostgreSQL starts (as root it runs as `postgres`, which
# cannot enter the copy), /health/ready answers 200, SIGTERM exits 0 and stops PostgreSQL, a
# second start finds the same data without rebuilding, a start while one runs is refused at once,
# the banner's hint works, nothing of the cluster or the secrets is world-readable.
# The copy holds the repository's tracked files and hard links to its node_modules (cp -al).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)" # 0700
copy="$work/billing"
server=""
cluster=""

fail() {
  echo "smoke: FAILED: $*" >&2
  [ -f "$work/server.log" ] && tail -n 20 "$work/server.log" | sed 's/^/smoke:   | /' >&2
  exit 1
}

postmaster_pid() {
  [ -n "$cluster" ] && [ -f "$cluster/postmaster.pid" ] && head -n 1 "$cluster/postmaster.pid" || true
}

cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    sleep 5
    kill -KILL -- "-$server" 2>/dev/null || true
  fi
  local pid
  pid="$(postmaster_pid)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  # A cluster kept outside the copy (root: under /var/lib/billing-api/clusters) goes too.
  case "$cluster" in /var/lib/billing-api/clusters/?*) rm -rf -- "$cluster" ;; esac
  rm -rf "$work"
}
trap cleanup EXIT

[ "$(stat -c %a "$work")" = 700 ] || fail "mktemp -d did not make a 0700 directory"
mkdir "$copy"
git -C "$repo" ls-files -z | tar -C "$repo" --null -T - -cf - | tar -C "$copy" -xf -
cp -al "$repo/node_modules" "$copy/node_modules"
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

# Starts `npm start` in the copy, waits (bounded) for GET /health/ready = 200.
start_server() {
  : >"$work/server.log"
  (cd "$copy" && exec env -u DATABASE_URL -u APP_SECRET -u DATA_DIR -u NODE_ENV PORT="$port" setsid npm start) \
    >"$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/health/ready" 2>/dev/null; then return 0; fi
    kill -0 "$server" 2>/dev/null || fail "npm start exited before /health/ready answered"
    sleep 0.5
  done
  fail "/health/ready did not answer 200 within 300 s"
}

# SIGTERM to `npm start`: it must exit 0 and leave no PostgreSQL running.
stop_server() {
  kill -TERM "$server"
  local status=0
  for _ in $(seq 1 120); do kill -0 "$server" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$server" 2>/dev/null && fail "npm start still running 60 s after SIGTERM"
  wait "$server" || status=$?
  server=""
  [ "$status" = 0 ] || fail "npm start exited $status after SIGTERM"
  local pid
  pid="$(postmaster_pid)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then fail "PostgreSQL (pid $pid) still running after the server stopped"; fi
}

started=$SECONDS
start_server
echo "smoke: first start ready in $((SECONDS - started)) s"
cluster="$(grep -o 'embedded PostgreSQL ready (data in [^)]*)' "$work/server.log" | sed 's/.*data in \(.*\))/\1/' | head -n 1)"
[ -n "$cluster" ] && [ -f "$cluster/PG_VERSION" ] || fail "no cluster named in the server's log"
grep -q 'Root API key' "$work/server.log" || fail "the first start printed no root key"
echo "smoke: cluster in $cluster"
# The banner comes last, and its hint works as printed.
ready_line="$(grep -n 'billing API ready' "$work/server.log" | head -n 1 | cut -d: -f1)"
keys_line="$(grep -n 'Root API keys' "$work/server.log" | head -n 1 | cut -d: -f1)"
[ "$keys_line" -gt "$ready_line" ] || fail "the banner came before the ready line"
hint="$(grep -o 'curl -H "Authorization: Bearer [^"]*" http://[^ ]*' "$work/server.log")"
[ "$(eval "$hint -s -o /dev/null -w '%{http_code}'")" = 200 ] || fail "the banner's hint does not answer 200: $hint"
# A second `npm start` while one runs says so at once, before building anything.
built="$(stat -c %Y "$copy/dist/apps/api/apps/api/src/main.js")"
(cd "$copy" && env -u DATABASE_URL -u DATA_DIR PORT="$port" npm start) >"$work/second.log" 2>&1 && fail "a second npm start did not refuse"
grep -q 'already runs from this directory' "$work/second.log" || fail "a second npm start did not name the running server: $(cat "$work/second.log")"
stop_server

started=$SECONDS
start_server
echo "smoke: second start ready in $((SECONDS - started)) s"
grep -q 'Root API key' "$work/server.log" && fail "the second start bootstrapped again: the data did not survive"
grep -q '^Building' "$work/server.log" && fail "the second start rebuilt unchanged sources"
[ "$(stat -c %Y "$copy/dist/apps/api/apps/api/src/main.js")" = "$built" ] || fail "dist/ was rebuilt"
stop_server

# Nothing world-readable: the cluster (0700), its password file, the app secret (0600).
[ "$(stat -c %a "$cluster")" = 700 ] || fail "cluster directory mode is $(stat -c %a "$cluster"), not 700"
[ "$(stat -c %a "$cluster/billing-password")" = 600 ] || fail "password file is not 0600"
[ "$(stat -c %a "$copy/.data/app-secret")" = 600 ] || fail "app-secret is not 0600"
exposed="$(find "$cluster" "$copy/.data" -mindepth 1 -perm /o=rwx -print -quit)"
[ -z "$exposed" ] || fail "$exposed is open to other users"
echo "smoke: npm start: ready, restart keeps the data, SIGTERM exits 0, modes private"

# The README's test command, in the same private copy, with its own embedded PostgreSQL.
(cd "$copy" && env -u DATABASE_URL npm test -- test/integration/billing-wallet/primary-wallet.spec.ts) \
  >"$work/test.log" 2>&1 || { tail -n 30 "$work/test.log" >&2; fail "npm test in the private copy failed"; }
echo "smoke: npm test in the private copy passed"
