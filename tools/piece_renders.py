"""Which public pieces a push renders again, how many of those renders give the bytes the piece already had,
and the time spent in them: where a push still renders what it need not.

    DATABASE_URL=sqlite:///scratch.sqlite3 .venv/bin/python -m tools.piece_renders [--pushes 60] [--deal 7]

(a migrated scratch database; nothing stays in it). It runs ``manage.py pushbench`` (an Inside Job table of 7
phones and a board, a vote a push, every game dealt from ``--deal``) with ``screens.pieces`` watched: each time a
kept piece is made anew, it counts the piece (by its id without the seat number) and whether its bytes are those
it had. "seconds" is the time of all its renders (the first ones too), its inner pieces' own renders not
included, though the check of the inner pieces it kept is. A render that gives the same bytes is one whose data
changed while its output did not: a narrower projection would have kept it.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter


def watch(pushes: int, deal: int, stdout=None) -> dict[str, dict[str, float]]:
    """Runs pushbench with the pieces watched: {piece: {"again": n, "same": n, "seconds": s}}, most made first."""
    from django.core.management import call_command

    from gameplay.screens import pieces

    again: Counter[str] = Counter()
    same: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    making: list[str] = []
    render, made_part = pieces._render, pieces.made_part

    def timed_render(*given, **named):
        inner_before = sum(seconds.values())
        start = time.perf_counter()
        try:
            return render(*given, **named)
        finally:
            inner = sum(seconds.values()) - inner_before
            seconds[making[-1]] += time.perf_counter() - start - inner

    def watched_made_part(part_id, *given, store, language, **named):
        name = part_id.rstrip("0123456789")
        known = store.get((part_id, language)) if store is not None else None
        making.append(name)
        try:
            made = made_part(part_id, *given, store=store, language=language, **named)
        finally:
            making.pop()
        if known is not None and made is not known and made.shell is not known.shell:
            again[name] += 1
            same[name] += made.html == known.html
        return made

    pieces._render, pieces.made_part = timed_render, watched_made_part
    try:
        call_command("pushbench", "--deal", str(deal), "--warmup", "5", "--pushes", str(pushes), stdout=stdout)
    finally:
        pieces._render, pieces.made_part = render, made_part
    return {name: {"again": count, "same": same[name], "seconds": seconds[name]} for name, count in again.most_common()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=60)
    parser.add_argument("--deal", type=int, default=7)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    rows = watch(args.pushes, args.deal)
    print(f"{'piece':24} {'made again':>10} {'same bytes':>10} {'seconds':>8}   ({args.pushes} pushes)")
    for name, row in rows.items():
        print(f"{name:24} {row['again']:10} {row['same']:10} {row['seconds']:8.3f}")


if __name__ == "__main__":
    main()
