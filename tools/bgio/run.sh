#!/usr/bin/env bash
# One measured run against a fresh boardgame.io server (issue 25):
#   tools/bgio/run.sh MATCHES SECONDS        (env: PORT=8390, WARMUP=5, THINK=2.0, SEED=1)
# Starts server.js on 127.0.0.1:$PORT, waits for the port, runs driver.js (which prints one JSON
# line), then stops the server it started.
set -euo pipefail
cd "$(dirname "$0")"
matches=${1:?usage: run.sh MATCHES SECONDS}
seconds=${2:?usage: run.sh MATCHES SECONDS}
port=${PORT:-8390}
[ -d node_modules/boardgame.io ] || npm ci --no-audit --no-fund >&2

node server.js "$port" >&2 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do  # up to 10 s for the port
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 "$server" 2>/dev/null || { echo "server exited" >&2; exit 1; }
  sleep 0.1
done
(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "port $port never opened" >&2; exit 1; }

node driver.js --pid "$server" --url "http://127.0.0.1:$port" --matches "$matches" \
  --duration "$seconds" --warmup "${WARMUP:-5}" --think "${THINK:-2.0}" --seed "${SEED:-1}"
