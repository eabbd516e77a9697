#!/usr/bin/env bash
# Our server and a boardgame.io server under the same load shape, alternately, and the ratio of their CPU a move
# (issue 25; docs/performance.md):
#   tools/versus_bgio.sh TABLES SECONDS [ROUNDS]
# Each round runs `tools/loadrun.sh . PORT TABLES SECONDS` (our `make run`-style server, every game dealt from one
# seeded sequence) and then `tools/bgio/run.sh TABLES SECONDS` (as many matches), one after the other on this
# machine, and prints each one's CPU a move and tap-to-every-screen latency, then the ratio ours / boardgame.io's.
# Needs Node.js and npm (boardgame.io is installed into tools/bgio/node_modules on first use).
set -euo pipefail
TABLES=${1:?usage: versus_bgio.sh TABLES SECONDS [ROUNDS]}; SECONDS_=${2:?usage: versus_bgio.sh TABLES SECONDS [ROUNDS]}
ROUNDS=${3:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "Node.js is missing: apt-get install nodejs npm"; exit 1; }
for round in $(seq "$ROUNDS"); do
  ours=$(DEALS=load "$HERE/loadrun.sh" "$HERE/.." "${PORT:-8395}" "$TABLES" "$SECONDS_" | grep '^{' | tail -1)
  theirs=$(PORT=${BGIO_PORT:-8396} "$HERE/bgio/run.sh" "$TABLES" "$SECONDS_" | grep '^{' | tail -1)
  OURS=$ours THEIRS=$theirs ROUND=$round python3 - <<'EOF'
import json, os
ours, theirs = json.loads(os.environ["OURS"]), json.loads(os.environ["THEIRS"])
our_ms = ours["server_cpu_pct"] * 10 / ours["moves_per_s"]  # % of a core / moves a second = ms of CPU a move
their_ms = theirs["server_cpu_ms_per_move"]
print(f"round {os.environ['ROUND']}, {ours['tables']} tables / {theirs['matches']} matches: "
      f"ours {our_ms:.2f} ms of CPU a move ({ours['moves_per_s']} moves/s, tap to every screen p50/p99 "
      f"{ours['tap_every_screen_p50_ms']}/{ours['tap_every_screen_p99_ms']} ms, {ours['errors_total']} errors); "
      f"boardgame.io {their_ms} ms ({theirs['moves_per_s']} moves/s, p50/p95 {theirs['tap_to_all_ms_p50']}/"
      f"{theirs['tap_to_all_ms_p95']} ms, errors {theirs['errors'] or 0}); ratio {our_ms / their_ms:.1f}x")
EOF
done
