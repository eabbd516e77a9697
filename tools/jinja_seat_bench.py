"""What Django's Jinja2 backend would give on the hottest public piece: Inside Job's seats on the board.

The seven seat items of a seated table's board, the same markup and logic written for Django's template
engine and for Jinja2 (translated words by Django's gettext in both), rendered from the same context; prints
whether the two give the same markup and each one's CPU time. Jinja2 is no dependency of the app:
    pip install --target /tmp/jinja jinja2==3.1.6
    PYTHONPATH=/tmp/jinja DATABASE_URL=sqlite:////tmp/jinja.sqlite3 .venv/bin/python manage.py migrate -v0
    PYTHONPATH=/tmp/jinja DATABASE_URL=sqlite:////tmp/jinja.sqlite3 .venv/bin/python -m tools.jinja_seat_bench
"""

from __future__ import annotations

import os
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import jinja2  # noqa: E402
from django.db import transaction  # noqa: E402
from django.template import Context, engines  # noqa: E402
from django.utils import translation  # noqa: E402
from django.utils.translation import gettext, ngettext  # noqa: E402

from gameplay.screens import TableNow  # noqa: E402
from lobby.models import Table  # noqa: E402
from tools.management.commands.pushbench import Command, seat_table  # noqa: E402

BADGES = (
    ('s.index == view.leader and not view.outcome', "ij-leader-badge", "Leader"),
    ("s.index == view.lady", "ij-lady-badge", "Lady of the Lake"),
    ("s.index in view.team", "ij-team-badge", "Team"),
    ('view.phase == "vote" and s.index in view.voted', "ij-voted", "Voted"),
    ('view.phase == "mission" and s.index in view.played', "ij-voted", "Played"),
)
ITEM = (
    '<li id="bv-seat-{{ s.index }}" class="board-seat seat{% if s.index == view.leader and not view.outcome %} active'
    '{% endif %}{% if s.index in view.awaiting %} awaited{% endif %}{% if s.index in view.team %} ij-in-team{% endif %}'
    '" data-i="{{ s.index }}"><p class="board-name"><span>{{ s.name }}</span></p><p class="board-badges">'
    + "".join(f'{{% if {test} %}}<span class="badge {css}">WORD:{word}</span>{{% endif %}}'
              for test, css, word in BADGES)
    + '{% if view.votes and view.phase != "vote" %}<span class="badge ij-vote">{% if v %}WORD:Approve{% else %}'
    'WORD:Reject{% endif %}</span>{% endif %}</p></li>'
)


def _django() -> str:
    item = ITEM
    for word in ("Leader", "Lady of the Lake", "Team", "Voted", "Played", "Approve", "Reject"):
        item = item.replace(f"WORD:{word}", f'{{% translate "{word}" %}}')
    return "{% load i18n %}{% for s in seats %}{% with v=view.votes|get:s.index %}" + item + "{% endwith %}{% endfor %}"


def _jinja() -> str:
    item = ITEM
    for word in ("Leader", "Lady of the Lake", "Team", "Voted", "Played", "Approve", "Reject"):
        item = item.replace(f"WORD:{word}", f'{{{{ _("{word}") }}}}')
    return "{% for s in seats %}{% set v = view.votes|get(s.index) %}" + item + "{% endfor %}"


def _get(mapping, key):
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


def timed(render, rounds: int = 500) -> float:
    render()
    began = time.process_time()
    for _ in range(rounds):
        render()
    return (time.process_time() - began) / rounds * 1e6


def main() -> None:
    environment = jinja2.Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    environment.install_gettext_callables(gettext, ngettext, newstyle=True)
    environment.filters["get"] = _get
    in_django, in_jinja = engines["django"].from_string(_django()).template, environment.from_string(_jinja())
    with transaction.atomic():
        code, _browsers = seat_table(7)
        for _ in range(3):
            Command()._move(code)
        now = TableNow.read(Table.objects.get(code=code).pk)
        assert now is not None
        with translation.override("en"):
            board = now.game_ctx(None)
            data = {"seats": board["seats"], "view": board["view"]}
            same = " ".join(in_django.render(Context(data)).split()) == " ".join(in_jinja.render(**data).split())
            print(f"same markup: {same}")
            print(f"Django: {timed(lambda: in_django.render(Context(data))):.0f} us for the seven seat items")
            print(f"Jinja2: {timed(lambda: in_jinja.render(**data)):.0f} us for the seven seat items")
        transaction.set_rollback(True)


if __name__ == "__main__":
    main()
