"""``{% url %}`` with each URL remembered (``gameplay.templatetags.url_memo``): Django's answers, exactly."""

from __future__ import annotations

import enum

import pytest
from django.template import Context, Template, engines
from django.template.defaulttags import URLNode
from django.test import RequestFactory
from django.urls import NoReverseMatch, clear_script_prefix, path, reverse, set_script_prefix, set_urlconf
from django.utils.safestring import SafeString

from gameplay.templatetags.url_memo import RememberedURLNode, remembered_reverse


def django_answer(source: str, context: dict) -> str:
    """What Django's own ``{% url %}`` renders for ``source``: its node, not ours."""
    template = Template(source)
    for node in template.nodelist.get_nodes_by_type(RememberedURLNode):
        node.__class__ = URLNode
    return template.render(Context(context))


CASES = [
    ("{% url 'table' code %}", {"code": "ABCDE"}),
    ("{% url 'move' code=code %}", {"code": "QWERT"}),
    ("{% url 'game_detail' n %}", {"n": 12}),
    ("{% url 'home' %}?next={% url name code %}", {"name": "board", "code": "ZXCVB"}),
    ("{% url 'table' code %}", {"code": SafeString("ASDFG")}),
    ("{% url 'table' code as there %}[{{ there }}]", {"code": "ABCDE"}),
    ("{% url 'seat_link' token %}", {"token": "a b&c<d>"}),
]


def test_templates_get_the_remembered_tag():
    template = engines["django"].from_string("{% url 'home' %}")
    assert template.template.nodelist.get_nodes_by_type(RememberedURLNode)


@pytest.mark.parametrize(("source", "context"), CASES)
def test_it_answers_what_djangos_tag_answers_the_first_time_and_after(source, context):
    expected = django_answer(source, context)
    assert Template(source).render(Context(context)) == expected
    assert Template(source).render(Context(context)) == expected
    assert Template(source).render(Context(context, autoescape=False)) == django_answer(
        "{% autoescape off %}" + source + "{% endautoescape %}", context)


def test_a_url_is_built_once_per_process():
    remembered_reverse.cache_clear()
    template = Template("{% url 'table' code %} {% url 'board' code %}")
    for _ in range(5):
        assert template.render(Context({"code": "ABCDE"})) == f"{reverse('table', args=['ABCDE'])} /t/ABCDE/board/"
    info = remembered_reverse.cache_info()
    assert (info.misses, info.hits) == (2, 8)


def test_the_script_prefix_and_the_urlconf_are_part_of_the_key():
    template = Template("{% url 'table' code %}")
    context = {"code": "ABCDE"}
    assert template.render(Context(context)) == "/t/ABCDE/"
    set_script_prefix("/games/")
    try:
        assert template.render(Context(context)) == "/games/t/ABCDE/"
    finally:
        clear_script_prefix()
        set_script_prefix("/")
    assert template.render(Context(context)) == "/t/ABCDE/"
    set_urlconf("tests.gameplay.test_url_memo")
    try:
        assert template.render(Context(context)) == "/elsewhere/ABCDE/"
    finally:
        set_urlconf(None)
    assert template.render(Context(context)) == "/t/ABCDE/"


def test_the_app_is_read_from_the_request_as_django_reads_it():
    """``request.current_app`` first (even None), else the request's namespace, else none."""
    source = "{% url 'table' code %}"
    with_app = RequestFactory().get("/")
    with_app.current_app = None
    plain = RequestFactory().get("/")
    for context in ({"code": "ABCDE", "request": with_app}, {"code": "ABCDE", "request": plain}, {"code": "ABCDE"}):
        assert Template(source).render(Context(context)) == django_answer(source, context) == "/t/ABCDE/"


def test_a_name_that_does_not_reverse_still_raises_and_is_not_kept():
    remembered_reverse.cache_clear()
    with pytest.raises(NoReverseMatch):
        Template("{% url 'no-such-page' %}").render(Context({}))
    assert Template("{% url 'no-such-page' as there %}[{{ there }}]").render(Context({})) == "[]"
    assert remembered_reverse.cache_info().currsize == 0


def test_arguments_that_are_not_plain_go_through_djangos_tag():
    remembered_reverse.cache_clear()
    template = Template("{% url 'seat_link' token %}")
    assert template.render(Context({"token": 1})) == "/s/1/"
    assert template.render(Context({"token": "a"})) == "/s/a/"
    # Equal keys, other URLs: True == 1 and Kind.A == "a", yet Django reverses them as "True" and "Kind.A".
    assert template.render(Context({"token": True})) == "/s/True/"
    assert template.render(Context({"token": Kind.A})) == django_answer("{% url 'seat_link' token %}",
                                                                         {"token": Kind.A})
    assert remembered_reverse.cache_info().currsize == 2


class Kind(str, enum.Enum):  # noqa: UP042 (not StrEnum: its str() is its value, this one's is "Kind.A")
    A = "a"


def _elsewhere(request, code):
    raise AssertionError("never called")


# The URLconf of test_the_script_prefix_and_the_urlconf_are_part_of_the_key: another 'table'.
urlpatterns = [path("elsewhere/<str:code>/", _elsewhere, name="table")]
