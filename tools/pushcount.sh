#!/usr/bin/env bash
# Instructions of one push (gameplay.live.frames.push_frames to 7 phones and a board, a vote), counted by valgrind:
#   tools/pushcount.sh TREE [PUSHES]          (MOVES=1: also one move's instructions, "per_move", without its push)
# TREE: a checkout (this one, or a `git worktree` of an older commit). On a fresh SQLite database it runs that tree's
# `manage.py pushbench --deal` twice under callgrind, the same games move for move: with a push after each move, and
# without (--no-push); the difference over PUSHES (default 30, after 5 warm-up pushes) is one push's instructions.
# A count is the same from run to run whatever else the machine does, so two trees compare to within a fraction
# of a percent (docs/performance.md); CPU time compares only alternately, on a quiet moment. Takes ~5 minutes.
set -euo pipefail
TREE=$(cd "$1" && pwd); PUSHES=${2:-30}
PYTHON=${PYTHON:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python}
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind"; exit 1; }
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
export DATABASE_URL=sqlite:///$WORK/count.sqlite3 PYTHONHASHSEED=0
cd "$TREE"
"$PYTHON" manage.py migrate -v0 --noinput
"$PYTHON" manage.py collectstatic -v0 --noinput >/dev/null
count() {  # count PUSHES [pushbench options]
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PYTHON" manage.py pushbench --deal 7 --warmup 5 \
    --pushes "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
WITH=$(count "$PUSHES"); WITHOUT=$(count "$PUSHES" --no-push)
if [ -n "${MOVES:-}" ]; then  # also one move's instructions (no push): the same run with twice the moves, less this one
  TWICE=$(count $(( 2 * PUSHES )) --no-push)
  PER_MOVE=", \"per_move\": $(( (TWICE - WITHOUT) / PUSHES ))"
fi
echo "{\"tree\": \"$TREE\", \"pushes\": $PUSHES, \"instructions\": $WITH, \"without_pushes\": $WITHOUT, \"per_push\": $(( (WITH - WITHOUT) / PUSHES ))${PER_MOVE:-}}"
