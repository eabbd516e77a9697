#!/usr/bin/env bash
# One measured load run against a `make run`-style server of a source tree (docs/performance.md):
#   tools/loadrun.sh TREE PORT TABLES SECONDS [loadtest options...]
# TREE: a checkout (this one, or a `git worktree` of an older commit, to compare before and after alternately,
# each with its own load tool). Migrates a fresh SQLite database, collects static files, serves the tree with
# daphne on 127.0.0.1:PORT (no abuse limits: every guest is 127.0.0.1; the game worker in process), runs that
# tree's `manage.py loadtest` for SECONDS after 5 s of warm-up, prints its last lines, and stops the server.
# BYFUNC=FILE: the server's CPU a move by function (tools/measured_server.py), written there and printed; DEALS=NAME:
# every game dealt from one seeded sequence (the same games in every run). KEEPLOG=FILE keeps the server's log there.
# SPY=FILE also records the server with py-spy (raw, 200 Hz, GIL-holding samples) from 15 s in.
set -euo pipefail
TREE=$(cd "$1" && pwd); PORT=$2; TABLES=$3; SECONDS_=$4; shift 4
PYTHON=${PYTHON:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python}
DB=$(mktemp -d)/load.sqlite3
export DATABASE_URL=sqlite:///$DB DJANGO_RATELIMIT=0
cd "$TREE"
"$PYTHON" manage.py migrate -v0 --noinput
"$PYTHON" manage.py collectstatic -v0 --noinput >/dev/null
SERVER=(-m daphne)
if [ -n "${BYFUNC:-}${DEALS:-}" ]; then
  SERVER=(-m tools.measured_server ${BYFUNC:+--by-function "$BYFUNC"} ${DEALS:+--deals "$DEALS"})
fi
"$PYTHON" "${SERVER[@]}" -b 127.0.0.1 -p "$PORT" config.asgi:application > "$(dirname "$DB")/daphne.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; [ -z "${KEEPLOG:-}" ] || cp "$(dirname "$DB")/daphne.log" "$KEEPLOG"; rm -rf "$(dirname "$DB")"' EXIT
for _ in $(seq 50); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.2; done
if [ -n "${BYFUNC:-}" ]; then
  (sleep 10; kill -USR1 "$PID") &  # the window: from after the load tool's set-up and warm-up to its end
fi
if [ -n "${SPY:-}" ]; then
  (sleep 15; "$(dirname "$PYTHON")/py-spy" record -p "$PID" -d "${SPYSECS:-15}" -r ${SPYRATE:-200} -f raw -o "$SPY" --gil \
    >/dev/null 2>&1) &
fi
"$PYTHON" manage.py loadtest --url "http://127.0.0.1:$PORT" --tables "$TABLES" --duration "$SECONDS_" --warmup 5 \
  --seed 7 --server-pid "$PID" "$@" 2>&1 | tail -3
if [ -n "${BYFUNC:-}" ]; then
  kill -USR2 "$PID"; sleep 1; cat "$BYFUNC"
fi
