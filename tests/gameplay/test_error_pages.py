"""The styled 404 and 500 pages (DEBUG off), in English and in Persian (right to left).

The 500 page must render with an empty context and no request, with the database down: it is
what a phone sees when the server cannot answer, and it says the table is safe.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings as django_settings
from django.test import Client, RequestFactory
from django.urls import path
from django.utils import translation
from django.views.defaults import server_error

from config.urls import urlpatterns as site_urlpatterns


def boom(request):
    raise RuntimeError("a bug in a view")


# This module is also the URLconf of the tests below: the site plus a view that raises.
urlpatterns = [path("boom/", boom), *site_urlpatterns]


@pytest.fixture
def live(settings):
    """Production-like error handling: DEBUG off, this module's URLconf."""
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__


def html_tag(html: str) -> str:
    match = re.search(r"<html[^>]*>", html)
    assert match, html[:300]
    return match.group(0)


def persian_client() -> Client:
    client = Client(raise_request_exception=False)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "fa"
    return client


@pytest.mark.django_db
def test_an_unknown_table_gets_the_styled_404(live):
    response = Client().get("/t/ZZZZZ/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Page not found</h1>" in html
    assert 'class="panel error-page"' in html
    assert 'href="/"' in html and 'dir="ltr"' in html
    assert Client().get("/no/such/page/").status_code == 404


@pytest.mark.django_db
def test_the_404_renders_right_to_left_in_persian(live):
    response = persian_client().get("/t/ZZZZZ/")
    assert response.status_code == 404
    tag = html_tag(response.content.decode())
    assert 'lang="fa"' in tag and 'dir="rtl"' in tag


@pytest.mark.django_db
def test_a_view_that_raises_gets_the_styled_500(live):
    response = Client(raise_request_exception=False).get("/boom/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>Something went wrong</h1>" in html
    assert "moves already made are kept" in html
    assert "/static/css/app.css" in html and 'href="/"' in html
    assert "<script" not in html and "style=" not in html  # nothing the CSP would refuse
    assert "a bug in a view" not in html


@pytest.mark.django_db
def test_the_500_renders_right_to_left_in_persian(live):
    response = persian_client().get("/boom/")
    assert response.status_code == 500
    tag = html_tag(response.content.decode())
    assert 'lang="fa"' in tag and 'dir="rtl"' in tag


@pytest.mark.parametrize(("language", "direction"), [("en", "ltr"), ("fa", "rtl")])
def test_the_500_needs_no_database_and_no_context(live, language, direction):
    # No django_db mark: any database query here would fail the test.
    with translation.override(language):
        response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert f'dir="{direction}"' in html_tag(html)
    assert "<h1>" in html and "/static/css/app.css" in html


@pytest.mark.django_db
def test_a_lost_database_answers_503_with_retry_after(client, monkeypatch):
    """A database restart mid-request: a styled 503 that tells the page to retry, never a traceback."""
    from django.db import OperationalError

    import gameplay.web.views

    def down(*args, **kwargs):
        raise OperationalError("the database system is shutting down")

    monkeypatch.setattr(gameplay.web.views, "table_or_404", down)
    response = client.get("/t/ABCDE/")
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert "Something went wrong" in response.content.decode()
