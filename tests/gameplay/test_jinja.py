"""The screens' Jinja templates (``screens.jinja``, through Django's ``Jinja2`` backend): which backend a name is,
what a missing name prints, words and values, a Jinja part in a Django page given its values alone, pieces drawn
from their parts alone, and their words collected."""

from __future__ import annotations

import ast
import datetime
import re
from pathlib import Path

import jinja2
import jinja2.meta
import pytest
from django.conf import settings
from django.template import TemplateDoesNotExist, engines
from django.template.backends.jinja2 import Jinja2
from django.template.loader import get_template
from django.utils import timezone, translation

from gameplay.management.commands.makemessages import jinja_messages
from gameplay.screens import jinja, pieces
from gameplay.selectors import public_parts


def _django(source: str, values: dict) -> str:
    return engines["django"].from_string(source).render(values)


def _jinja(source: str, values: dict) -> str:
    return str(jinja.env().from_string(source).render(values))


VALUES = {"name": "O'Hara & \"Sons\" <b>", "names": ["Ann <i>", "Bo'", "Cy"],
          "view": {"team": [0, 2], "leader": 1, "count": 2, "empty": [], "gone": None}}


def test_a_jinja_name_is_the_jinja_backends_and_any_other_djangos():
    assert isinstance(engines["jinja2"], Jinja2) and engines["jinja2"].env is jinja.env()
    assert get_template("games/inside_job/board.jinja").backend is engines["jinja2"]
    assert get_template("gameplay/table.html").backend is engines["django"]
    with pytest.raises(TemplateDoesNotExist):
        engines["jinja2"].get_template("gameplay/table.html")  # Django's: never parsed as Jinja
    with pytest.raises(TemplateDoesNotExist):
        get_template("games/none/such.jinja")


def test_a_missing_name_prints_nothing_and_a_project_filter_is_given_empty_text_for_it():
    assert _jinja("[{{ missing }}|{{ view.gone.deeper }}|{{ view.nothing.at.all }}]", VALUES) == "[||]"
    with translation.override("en"):
        assert _jinja("{{ view.leader|seat_name(names) }}; {{ view.team|seat_names(names) }}; "
                      "{{ view.absent|seat_name(names) }}", VALUES) == "Bo&#39;; Ann &lt;i&gt;, Cy; Seat "


def test_a_dots_value_is_the_one_jinjas_own_environment_finds():
    """The environment finds a plain dict's key without raising first; every other lookup is Jinja's own."""
    plain = jinja2.Environment(undefined=jinja2.ChainableUndefined)
    items = {"role": "spy", "items": "a key named like a method", "get": 3}
    source = ("{{ v.role }}|{{ v.items is callable }}|{{ v.get('role') }}|{{ v.missing.deeper }}|{{ n.real }}|"
              "{{ s.upper() }}|{{ l.0 }}|{{ t.role }}")
    values = {"v": items, "n": 5, "s": "x", "l": ["first"], "t": type("T", (), {"role": "attr"})}
    assert _jinja(source, values) == plain.from_string(source).render(values) == "spy|True|spy||5|X|first|attr"


def test_a_templates_globals_are_the_environments_in_one_plain_dict():
    template = jinja.env().get_template("games/inside_job/board.jinja")
    assert type(template.globals) is dict and template.globals.keys() >= jinja.env().globals.keys()


def test_words_are_translated_in_the_language_of_the_render_and_values_escaped_into_them():
    source = '{{ _("Your side won.") }}|{{ _("Leader: %(who)s")|fill(who=name) }}|{{ ngettext("%(n)s Sabotage", ' \
             '"%(n)s Sabotage", view.count)|fill(n=view.count) }}'
    with translation.override("en"):
        assert _jinja(source, VALUES) == "Your side won.|Leader: O&#39;Hara &amp; &#34;Sons&#34; &lt;b&gt;|2 Sabotage"
    for language in ("fa", "ja"):
        with translation.override(language):
            assert _jinja(source, VALUES).split("|")[0] == translation.gettext("Your side won.") != "Your side won."


def test_a_time_is_shown_in_the_current_zone():
    moment = datetime.datetime(2026, 12, 4, 18, 5, tzinfo=datetime.UTC)
    with timezone.override("Asia/Tehran"), translation.override("fa"):
        shown = _jinja('{{ t|time("TIME_FORMAT") }}', {"t": moment})
        assert shown == _django('{{ t|time:"TIME_FORMAT" }}', {"t": moment}) != "18:05"


def test_a_django_page_shows_a_jinja_part_from_the_values_its_tag_names_alone(rf):
    page = ('{% jinja "games/inside_job/role_name.jinja" role=role %}|'
            '{% jinja "games/coup"|game_template:"role_name" role="agents" %}|{% jinja "lobby/_nickname.jinja" %}')
    request = rf.get("/")
    with translation.override("ja"):
        text = engines["django"].from_string(page).render({"role": "merlin", "next": "/hidden"}, request)
        merlin, team, form = text.split("|", 2)
        assert merlin == translation.gettext("Merlin") != "Merlin"
        assert team == translation.gettext("Agents") != "Agents"  # a game with no role_name of its own: the team's
    assert 'name="csrfmiddlewaretoken"' in form and "/hidden" not in form  # the page's request, not its names


def test_no_page_includes_a_jinja_template_as_its_own():
    """A Django ``{% include %}`` of a ``.jinja`` name would parse it as Django's: pages use ``{% jinja %}``."""
    root = Path(settings.TEMPLATES[0]["DIRS"][0])
    included = re.compile(r"{%\s*include\s+[^%]*(\.jinja|game_template)")
    assert [path.name for path in root.rglob("*.html") if included.search(path.read_text())] == []


BOARD = ('{% call nativedigits() %}<div id="root" data-tag="{{ tag }}">{% include "games/inside_job/board.jinja" %}'
         '</div>{% endcall %}')


class Board:
    """Inside Job's board (a Jinja template with pieces) as a public fragment, counting its renders."""

    def __init__(self) -> None:
        self.template = jinja.env().from_string(BOARD)
        self.store = pieces.Store()
        self.renders = 0

    def render(self, context: dict) -> str:
        self.renders += 1
        return self.template.render(context)

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
        assert jinja.env().get_template(name).name == name


_NAMED = re.compile(r'named\("([^"]+)", (\w+)=')


def test_a_named_template_reads_only_the_value_it_is_given_and_is_drawn_in_each_language():
    """``named(name, key=…)`` keeps a drawing per language and values: right only if the template reads nothing else."""
    root = Path(settings.TEMPLATES[0]["DIRS"][0])
    calls = {found for path in root.rglob("*.jinja") for found in _NAMED.findall(path.read_text())}
    assert ("games/coup/card_name.jinja", "card") in calls and ("gameplay/_team_name.jinja", "team") in calls
    env = jinja.env()
    for name, key in calls:
        read = jinja2.meta.find_undeclared_variables(env.parse(env.loader.get_source(env, name)[0]))
        assert read <= {key}, (name, read)
    drawn = '{{ named("games/inside_job/role_name.jinja", role=role) }}'
    with translation.override("en"):
        assert _jinja(drawn, {"role": "merlin"}) == "Merlin"
    with translation.override("fa"):
        assert _jinja(drawn, {"role": "merlin"}) == translation.gettext("Merlin") != "Merlin"
        assert _jinja(drawn, {"role": "assassin"}) == translation.gettext("Assassin")
    with translation.override("en"):  # a value named "name" too (the Good Cop Bad Cop card's key)
        assert _jinja('{{ named("games/good_cop_bad_cop/card_name.jinja", name="kingpin") }}', {}) == "Kingpin"
