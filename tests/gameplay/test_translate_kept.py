"""``{% translate %}`` with each literal's translation kept per language (``gameplay.templatetags.i18n_kept``):
Django's answers, exactly, in every language, the first time and after."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.template.loader import get_template
from django.templatetags.i18n import TranslateNode
from django.utils import translation

from gameplay.templatetags.i18n_kept import KeptTranslateNode


def django_answer(source: str, context: dict, *, autoescape: bool = True) -> str:
    """What Django's own ``{% translate %}`` renders for ``source``: its node, not ours."""
    template = Template(source)
    for node in template.nodelist.get_nodes_by_type(KeptTranslateNode):
        node.__class__ = TranslateNode
    return template.render(Context(context, autoescape=autoescape))


CASES = [
    ('{% translate "Leader" %}', {}),
    ('{% translate "Leader" as word %}[{{ word }}]', {}),
    ('{% translate "Rules" %} · {% translate "Board" %}', {}),
    ('{% translate "50% off" %}', {}),
    ("{% translate title %}", {"title": "Leader"}),
    ("{% translate title %}", {"title": "<b>Leader</b>"}),
    ('{% translate "Leader"|upper %}', {}),
    ('{% translate "May" context "month name" %}', {}),
    ('{% translate "Leader" noop %}', {}),
]


@pytest.mark.parametrize(("source", "context"), CASES)
def test_it_answers_what_djangos_tag_answers_in_every_language_and_again(source, context):
    template = Template(source)
    for _ in range(2):
        for language in ("en", "fa", "ja", "en"):
            with translation.override(language):
                assert template.render(Context(context)) == django_answer(source, context)
                assert template.render(Context(context, autoescape=False)) == django_answer(
                    source, context, autoescape=False)


def test_a_literal_is_kept_per_language_and_the_languages_differ():
    template = Template('{% translate "Leader" %}')
    seen = {}
    for language in ("en", "fa", "ja"):
        with translation.override(language):
            seen[language] = template.render(Context({}))
    assert len(set(seen.values())) == 3, seen  # the catalogs translate it: each language its own word
    (node,) = template.nodelist.get_nodes_by_type(KeptTranslateNode)
    assert node.kept == {(language, True): word for language, word in seen.items()}


def test_only_a_plain_literal_is_kept():
    kept = {'{% translate "Leader" %}': True, '{% translate "Leader" as word %}': True,
            "{% translate title %}": False, '{% translate "Leader"|upper %}': False,
            '{% translate "May" context "month name" %}': False, '{% translate "Leader" noop %}': False}
    for source, expected in kept.items():
        (node,) = Template(source).nodelist.get_nodes_by_type(KeptTranslateNode)
        assert (node.kept is not None) is expected, source


def test_no_template_loads_djangos_i18n_and_the_games_use_the_kept_tag():
    loading = [str(path) for directory in settings.TEMPLATES[0]["DIRS"] for path in Path(directory).rglob("*")
               if path.is_file() and "{% load i18n" in path.read_text(encoding="utf-8", errors="replace")]
    assert loading == []
    nodes = get_template("gameplay/_replay.html").template.nodelist.get_nodes_by_type(TranslateNode)
    assert nodes and all(type(node) is KeptTranslateNode for node in nodes)
