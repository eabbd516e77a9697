"""Daphne serving the app as ``make run`` does, measured: where a move's CPU goes, and (optionally) the same deals.

    python -m tools.measured_server [--by-function FILE] [--deals NAME] DAPHNE-ARGUMENTS...

``--by-function FILE``: thread CPU time (``time.thread_time_ns``) is added up around the functions a move and a
push run through (:data:`MEASURED`), beside the event loop thread's own CPU clock and the whole process's. SIGUSR1
starts the window (after a load tool's warm-up), SIGUSR2 writes the figures of the window, per accepted move, to
FILE. A function inside another measured one is counted in both; one inside itself (a piece in a piece) once. The
garbage collector's CPU is counted by generation, wherever it runs.
The wrappers cost about 5% of a move.

``--deals NAME``: every game is dealt from one sequence seeded with NAME (``tools.deals``, as the tests deal), so
two runs play the same games and the spread between them is the machine's.

Only for measuring (``tools/loadrun.sh``: ``BYFUNC=FILE``, ``DEALS=NAME``); the app never imports it.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import resource
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

# (module, attribute path, what it is called in the figures): where a move and a push spend their time.
MEASURED = (
    ("gameplay.live.moves", "play", "a move over the socket (all of it)"),
    ("gameplay.services", "move_submit", "move_submit"),
    ("gameplay.live.frames", "push_frames", "a push to a table's other screens (all of it)"),
    ("gameplay.live.frames", "TableRound.frame", "frames built (all of it)"),
    ("gameplay.screens.pieces", "_render", "public parts rendered"),
    ("gameplay.screens.table", "_rendered", "own parts, tools and shells rendered"),
    ("gameplay.screens.pieces", "made_part", "public parts made or checked (all of it)"),
    ("gameplay.live.frames", "phone_parts", "phone parts (their views and contexts included)"),
    ("gameplay.live.frames", "viewers_of_sessions", "sessions read again"),
    ("gameplay.screens.table", "csrf_token_for", "CSRF tokens masked"),
    ("gameplay.screens.table", "digest", "digests"),
    ("gameplay.screens.table", "TableNow.view", "engine views"),
    ("infra.jsontext", "text", "frames as JSON"),
)


class Clock:
    """Thread CPU added up per name, counting a function running inside itself once."""

    def __init__(self) -> None:
        self.spent: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._inside = threading.local()
        self.began_process = 0.0
        self.began_loop = 0.0
        self.loop_clock = time.pthread_getcpuclockid(threading.main_thread().ident or 0)
        self.collected: Counter[int] = Counter()  # the collector's CPU (ns) by generation, and its runs
        self.collections: Counter[int] = Counter()
        self._collecting = 0
        gc.callbacks.append(self._collector)

    def _collector(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._collecting = time.thread_time_ns()
        else:
            self.collected[info["generation"]] += time.thread_time_ns() - self._collecting
            self.collections[info["generation"]] += 1

    def wrap(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def measured(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._inside, name, 0)
            if depth:
                return function(*args, **kwargs)
            setattr(self._inside, name, 1)
            began = time.thread_time_ns()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[name] += time.thread_time_ns() - began
                self.calls[name] += 1
                setattr(self._inside, name, 0)
        return measured

    def start(self) -> None:
        self.spent.clear()
        self.calls.clear()
        self.collected.clear()
        self.collections.clear()
        self.began_process = _process_seconds()
        self.began_loop = time.clock_gettime(self.loop_clock)

    def figures(self) -> str:
        moves = self.calls["move_submit"]
        if not moves:
            return "no move was made in the window\n"
        process = (_process_seconds() - self.began_process) * 1e3 / moves
        loop = (time.clock_gettime(self.loop_clock) - self.began_loop) * 1e3 / moves
        lines = [f"{moves} moves; ms of CPU a move (calls a move)",
                 f"{'the whole process':58s} {process:7.3f}", f"{'the event loop thread':58s} {loop:7.3f}"]
        for _module, _path, name in MEASURED:
            lines.append(f"{name:58s} {self.spent[name] / 1e6 / moves:7.3f} ({self.calls[name] / moves:.2f})")
        for generation, name in enumerate(("young", "middle", "full")):
            lines.append(f"{'the garbage collector, ' + name + ' collections':58s} "
                         f"{self.collected[generation] / 1e6 / moves:7.3f} ({self.collections[generation]} in all)")
        return "\n".join(lines) + "\n"


def _process_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _replace(module_name: str, path: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    owner: Any = sys.modules[module_name]
    *outer, attribute = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    setattr(owner, attribute, make(getattr(owner, attribute)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--by-function", metavar="FILE")
    parser.add_argument("--deals", metavar="NAME")
    options, daphne_arguments = parser.parse_known_args()
    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from gameplay import services  # noqa: F401 (replaced in place below)
    from gameplay.live import frames, moves  # noqa: F401
    from gameplay.screens import pieces, table  # noqa: F401
    from infra import jsontext  # noqa: F401
    from tools.deals import seeded_deals

    if options.deals:
        seeded_deals(options.deals).__enter__()  # for the life of the server
    if options.by_function:
        if "gameplay.live.consumers" in sys.modules:  # it keeps its own references to play and push_frames
            raise SystemExit("gameplay.live.consumers was imported before its functions could be measured")
        clock, target = Clock(), options.by_function
        for module_name, path, name in MEASURED:
            _replace(module_name, path, functools.partial(clock.wrap, name=name))

        def write(*_: Any) -> None:
            with open(target, "w", encoding="utf-8") as out:
                out.write(clock.figures())

        signal.signal(signal.SIGUSR1, lambda *_: clock.start())
        signal.signal(signal.SIGUSR2, write)
    from daphne.cli import CommandLineInterface

    sys.argv = ["daphne", *daphne_arguments]
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
