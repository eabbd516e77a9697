"""What the games' tests of their public parts share: names of the old-style context that fail any read, so a
public template shown to read only its parts reads nothing else."""

from __future__ import annotations


class Poison:
    """A name of the old-style context (view, seats, names, …) that fails any template reading it."""

    def __getattr__(self, name):
        raise AssertionError(f"a public template read .{name} of a name other than parts")

    def __getitem__(self, key):
        raise AssertionError(f"a public template read [{key!r}] of a name other than parts")

    def __bool__(self):
        raise AssertionError("a public template tested a name other than parts")

    def __iter__(self):
        raise AssertionError("a public template iterated a name other than parts")

    def __str__(self):
        raise AssertionError("a public template wrote a name other than parts")


POISONED = dict.fromkeys(("view", "seats", "names", "me", "log_template", "ended_views", "game", "table"), Poison())
