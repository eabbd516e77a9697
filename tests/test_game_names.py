"""A game lives in its own two folders: no other file of the app names it, but for a short, justified list.

A game is ``engines/<engine>/`` (its rules, and what the web layer shows of it) and
``templates/games/<engine>/`` (its screens, card art and stylesheet); adding one is those two folders
and one line in ``engines/registry.py``. This test reads what the app ships outside them (every file
under config/, engines/, gameplay/, infra/, lobby/ and templates/) and lists each file that names a game.

A file *names a game* when its path, or the text of a ``.py``, ``.html``, ``.jinja``, ``.js``, ``.css`` or ``.svg``
file (code, comments and docstrings alike: a shared module explained by one game's example was shaped
by it), holds, in any letter case:

- a registered engine's id in any spelling, with ``_``, ``-``, a space or nothing between its words:
  ``inside_job``, ``inside-job``, ``InsideJob``, "Inside Job"; ``good_cop_bad_cop`` (and so its
  ``_health`` edition), "Good Cop Bad Cop"; ``coup`` as a word of its own or the start of a
  CamelCase name ("Coup's", ``coup-pending``, ``CoupEngine``, not "couple");
- a game's short prefix (``PREFIXES``), as its classes, CSS and template tags spell it, as a word of its
  own or before ``-`` or ``_``: ``gcbc-status``, ``ij_track``, ``.gh``.

A game's vocabulary (its roles, cards and moves: "Merlin", "Duke", "mission") is not looked for:
shared code speaks of cards and roles in general, and the list of every game's words would be the
games' knowledge again.

Not read: tests/ and tools/ (they drive the games by name; they are not the app), docs/; locale/: its
catalogues are what ``makemessages`` collects from the templates, so a game's strings there come from
the game's own folder and are checked at their source (Django keeps one catalogue per language); and
migrations/: the database's history, frozen once written, where a data migration names the game whose
stored rows it rewrites (adding a game adds none).
"""

from __future__ import annotations

import re
from pathlib import Path

from engines.registry import ENGINES

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("config", "engines", "gameplay", "infra", "lobby", "templates")
TEXT = {".py", ".html", ".jinja", ".js", ".css", ".svg"}
# The short names the games' own classes, CSS and template tags go by.
PREFIXES = {"inside_job": "ij", "good_cop_bad_cop": "gcbc", "good_cop_bad_cop_health": "gh"}

# Files outside the games' folders that name a game, each with why it does.
ALLOWED = {
    "engines/registry.py": "the one line per game that registers it",
    "gameplay/static/css/board.css": "per-game board rules win ties by coming after the shared ones (see below)",
    "templates/stats/about.html": "players' prose in two translated sentences; one per game would reword the page",
}
# board.css: the game's own sheet loads before board.css on the board page, so a rule moved there would lose the ties
# it now wins (``.board-centre .notice`` against ``.board-coup .coup-status``); moving them means new selectors and
# every board at both sizes checked again in a browser, which is more than it gives today.


def _spelling(engine: str) -> str:
    words = engine.split("_")
    if len(words) == 1:
        # One short word ("coup") is a game's only when it stands alone or starts a CamelCase name.
        return rf"(?<![A-Za-z])(?i:{words[0]})(?![a-z])"
    return "(?i:" + "[ _-]?".join(words) + ")"


NAMES = re.compile("|".join([
    *(_spelling(engine) for engine in ENGINES),
    *(rf"(?i:(?<![a-z0-9]){prefix}(?![a-z0-9]))" for prefix in PREFIXES.values()),
]))


def _game_folder(path: Path) -> bool:
    """Whether ``path`` (from the root) lies in a game's own folder."""
    parts = path.parts
    if parts[0] == "engines":
        return len(parts) >= 3 and parts[1] in ENGINES
    return parts[:2] == ("templates", "games") and len(parts) >= 4 and parts[2] in ENGINES


def naming_files() -> dict[str, list[str]]:
    """Each shipped file outside the games' folders that names a game, with the lines (or path) that do."""
    found: dict[str, list[str]] = {}
    for root in SCANNED:
        for path in sorted((ROOT / root).rglob("*")):
            relative = path.relative_to(ROOT)
            if not path.is_file() or {"__pycache__", "migrations"} & set(relative.parts) or _game_folder(relative):
                continue
            hits = [f"path: {relative}"] if NAMES.search(str(relative)) else []
            if path.suffix in TEXT:
                hits += [f"{number}: {line.strip()[:100]}"
                         for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                         if NAMES.search(line)]
            if hits:
                found[relative.as_posix()] = hits
    return found


def test_the_names_looked_for_are_every_games_and_only_its():
    for text in ("inside_job", "InsideJob", "Inside Job", "inside-job", "good_cop_bad_cop_health", "GoodCopBadCop",
                 "Good Cop Bad Cop", "coup", "Coup's", "coup-pending", "CoupEngine", ".board-coup", "gcbc-status",
                 "ij_track", 'class="gh gh-board"', "IJ-"):
        assert NAMES.search(text), text
    for text in ("couple", "coupon", "Good cops", "inside", "hijack", "high-", "ghost", "gcbcx", "judge"):
        assert not NAMES.search(text), text


def test_no_file_outside_the_games_folders_names_a_game_but_the_allowed_ones():
    found = naming_files()
    unexpected = {path: lines for path, lines in found.items() if path not in ALLOWED}
    assert not unexpected, (
        "These files name a game outside engines/<engine>/ and templates/games/<engine>/; move what names it "
        "into the game's folders, or add the file to ALLOWED with why it must stay:\n"
        + "\n".join(f"{path}\n    " + "\n    ".join(lines[:5]) for path, lines in unexpected.items()))
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"These allowed files no longer name a game; take them off ALLOWED: {stale}"


def test_every_allowed_file_says_why():
    assert all(reason.strip() for reason in ALLOWED.values())
