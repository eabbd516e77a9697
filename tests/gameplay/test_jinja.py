"""Jinja2 templates inside Django's engine (``screens.jinja``): the same bytes as Django's templates would give,
the names read through the Django context, pieces drawn from their parts alone, and their words collected."""

from __future__ import annotations

import ast
import datetime
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, TemplateDoesNotExist, engines
from django.template.loader import render_to_string
from django.utils import timezone, translation

from gameplay.management.commands.makemessages import jinja_messages
from gameplay.screens import jinja, pieces
from gameplay.selectors import public_parts

LANGUAGES = ("en", "fa", "ja")


def _django(source: str, values: dict) -> str:
    return engines["django"].from_string(source).render(values)


def _jinja(source: str, values: dict) -> str:
    return str(jinja.environment().from_string(source).render(values))


# Each pair: a Django template and the Jinja one written for it; both must give the same bytes.
PAIRS = [
    ('{{ name }}|{{ missing }}|{{ view.none }}', '{{ name }}|{{ missing }}|{{ view.none }}'),
    ('{% if missing is None %}none{% endif %}{% if view.gone is not None %}some{% endif %}',
     '{% if missing is none %}none{% endif %}{% if view.gone is not none %}some{% endif %}'),
    ('{% if 1 in view.nothing %}in{% else %}out{% endif %}{% if 2 in view.team %}team{% endif %}',
     '{% if 1 in view.nothing %}in{% else %}out{% endif %}{% if 2 in view.team %}team{% endif %}'),
    ('{% if view.nothing > 2 %}more{% else %}not{% endif %}', '{% if view.nothing > 2 %}more{% else %}not{% endif %}'),
    ('{{ view.items }} {{ view.keys }}', '{{ view.items }} {{ view.keys }}'),  # a dict's key before its method
    ('{{ view.empty|default:"dash" }} {{ view.team|last }} {{ view.empty|last }}',
     '{{ view.empty|default("dash") }} {{ view.team|last }} {{ view.empty|last }}'),
    ('{{ view.leader|seat_name:names }}; {{ view.team|seat_names:names }}; {{ view.gone|seat_name:names }}',
     '{{ view.leader|seat_name(names) }}; {{ view.team|seat_names(names) }}; {{ view.gone|seat_name(names) }}'),
    ('{% translate "Your side won." %} {% translate "You are on the Agents\' side: make three missions succeed." %}',
     '{{ _("Your side won.") }} {{ _("You are on the Agents\' side: make three missions succeed.") }}'),
    ('{% blocktranslate with who=view.leader|seat_name:names %}Leader: {{ who }}{% endblocktranslate %}',
     '{{ _("Leader: %(who)s")|fill(who=view.leader|seat_name(names)) }}'),
    ('{% blocktranslate count n=view.count %}{{ n }} Sabotage{% plural %}{{ n }} Sabotage{% endblocktranslate %}',
     '{{ ngettext("%(n)s Sabotage", "%(n)s Sabotage", view.count)|fill(n=view.count) }}'),
    ('{% spaceless %} <p> {{ name }} </p> <b>x</b> {% endspaceless %}',
     '{% filter spaceless %} <p> {{ name }} </p> <b>x</b> {% endfilter %}'),
]
VALUES = {"name": "O'Hara & \"Sons\" <b>", "names": ["Ann <i>", "Bo'", "Cy"],
          "view": {"items": "the items key", "keys": 3, "team": [0, 2], "leader": 1, "count": 2, "empty": [],
                   "none": None, "gone": None}}


@pytest.mark.parametrize(("django_source", "jinja_source"), PAIRS)
def test_a_jinja_template_gives_the_bytes_of_the_django_template_it_was_written_from(django_source, jinja_source):
    for language in LANGUAGES:
        with translation.override(language):
            assert _jinja(jinja_source, VALUES) == _django(django_source, VALUES), language


def test_a_time_is_shown_in_the_current_zone_and_a_django_template_is_included_with_the_names_given():
    moment = datetime.datetime(2026, 12, 4, 18, 5, tzinfo=datetime.UTC)
    with timezone.override("Asia/Tehran"), translation.override("fa"):
        shown = _jinja('{{ t|time("TIME_FORMAT") }}', {"t": moment})
        assert shown == _django('{{ t|time:"TIME_FORMAT" }}', {"t": moment}) != "18:05"
        assert _jinja('{{ include("gameplay/_team_name.html", team="agents") }}', {}) == _django(
            '{% include "gameplay/_team_name.html" with team="agents" %}', {}) != ""


def test_a_value_is_escaped_as_django_escapes_it_and_the_translated_words_are_not():
    with translation.override("en"):
        assert _jinja("{{ name }}", VALUES) == "O&#x27;Hara &amp; &quot;Sons&quot; &lt;b&gt;"
        text = _jinja('{{ _("Leader: %(who)s")|fill(who=name) }}', VALUES)
        assert text == "Leader: O&#x27;Hara &amp; &quot;Sons&quot; &lt;b&gt;"


def test_a_django_template_includes_a_jinja_one_which_reads_its_names_from_the_django_context():
    with translation.override("ja"):
        text = _django('{% include "games/inside_job/role_name.jinja" with role="merlin" %}', {})
        assert text == translation.gettext("Merlin") != "Merlin"
        assert render_to_string("games/inside_job/role_name.jinja", {"role": "oberon"}) == translation.gettext("Oberon")
    with pytest.raises(TemplateDoesNotExist):
        engines["django"].engine.get_template("games/none/such.jinja")


BOARD = ('{% nativedigits %}<div id="root" data-tag="{{ tag }}">{% include "games/inside_job/board.jinja" %}</div>'
         '{% endnativedigits %}')


class Board:
    """Inside Job's board (a Jinja template with pieces) as a public fragment, counting its renders."""

    def __init__(self) -> None:
        self.template = engines["django"].from_string(BOARD).template
        self.store = pieces.Store()
        self.renders = 0

    def render(self, context: dict) -> str:
        self.renders += 1
        return self.template.render(Context(context))

    def fragment(self, view: dict, store: pieces.Store | None = None) -> pieces.Made:
        seats = [{"index": i, "name": f"P{i}", "is_bot": i == 2} for i in range(5)]
        parts = public_parts("inside_job", view, seats)
        return pieces.render_fragment("root", "board", {}, self.render, store=store, parts=parts,
                                      language=translation.get_language())


VIEW = {"phase": "vote", "leader": 1, "awaiting": [0, 2, 3, 4], "team": [1, 3], "lady": 4, "voted": [1],
        "played": [], "votes": {}, "outcome": None, "reveal": {}, "mission_number": 1, "team_size": 2,
        "rejections": 0, "max_rejections": 5, "sabotage_needed": [1, 1, 1, 2, 1], "missions": [], "results": [],
        "log": [{"event": "proposal", "leader": 1, "team": [1, 3], "mission": 1, "attempt": 1}]}


def test_a_jinja_templates_pieces_are_made_again_only_where_their_parts_changed(settings):
    settings.SCREEN_PIECES_VERIFY = True  # every reused piece is rendered again and compared
    board = Board()
    with translation.override("en"):
        first = board.fragment(dict(VIEW), board.store)
        assert board.fragment(dict(VIEW), board.store) is first and board.renders == 1 + 1  # + the verifying render
        voted = board.fragment(dict(VIEW, voted=[1, 3], awaiting=[0, 2, 4]), board.store)
        changed = {piece for piece, (tag, _html) in voted.pieces.items() if first.pieces[piece][0] != tag}
        assert changed == {"bv-seat-3", "bv-now"}
        assert voted.html == board.fragment(dict(VIEW, voted=[1, 3], awaiting=[0, 2, 4])).html  # as made anew


def test_jinja_templates_words_are_collected_with_their_lines_and_are_in_the_catalogs():
    source = ('<p>{{ _("One") }}</p>\n<b class="x">{{ _("Two %(n)s")|fill(n=1) }} {{ ngettext("%(n)s card", '
              '"%(n)s cards", n)|fill(n=n) }}</b>\n{% set x = pgettext("list separator", ", ") %}{{ x._("no") }}')
    lines = jinja_messages(source).split("\n")
    assert lines == [' gettext("One")', ' gettext("Two %(n)s") ngettext("%(n)s card", "%(n)s cards", 1)',
                     ' pgettext("list separator", ", ")']
    calls = re.compile(r'\bgettext\("((?:[^"\\]|\\.)*)"\)')
    root = Path(settings.TEMPLATES[0]["DIRS"][0])
    words = {ast.literal_eval(f'"{word}"') for path in root.rglob("*.jinja")
             for word in calls.findall(jinja_messages(path.read_text()))}
    assert "Lady of the Lake: %(who)s" in words and len(words) > 80
    worded = [word for word in words if re.search("[A-Za-z]", re.sub(r"%\(\w+\)[sd]", "", word))]
    for language in ("fa", "ja"):  # each translated (Persian and Japanese share no sentence with English)
        with translation.override(language):
            assert [word for word in worded if translation.gettext(word) == word] == [], language


def test_every_jinja_template_compiles_and_names_only_templates_it_can_find():
    root = Path(settings.TEMPLATES[0]["DIRS"][0])
    names = sorted(str(path.relative_to(root)) for path in root.rglob("*.jinja"))
    assert "games/inside_job/board.jinja" in names
    for name in names:
        assert jinja.get_template(name).names is not None
    assert isinstance(Context({}), Context)
