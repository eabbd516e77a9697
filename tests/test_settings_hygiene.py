"""Settings hygiene: no Redis password on the debug page, a private secret key file, a strict CSP."""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory
from django.views.debug import technical_500_response

from config.settings import BASE_DIR, load_secret_key
from infra.reporting import UrlPasswordFilter

# Kept far from the lines that raise below: the debug page also shows a few source lines
# around every frame, and this file's own text is not what is under test.
SECRET_URL = "redis://default:s3cr3t-Pa55@redis.example:6379/0"
SECRET = "s3cr3t-Pa55"


def test_url_passwords_are_starred_and_the_rest_kept():
    mask = UrlPasswordFilter().mask
    assert mask("redis://:pw@127.0.0.1:6379/0") == "redis://:********************@127.0.0.1:6379/0"
    assert mask("rediss://user:p@ss@host/1") == "rediss://user:********************@host/1"
    assert mask("postgres://u:x@db/app and redis://:y@r/0").count("*" * 20) == 2
    for text in ("redis://127.0.0.1:6379/0", "http://host:8000/a@b", "user@example.com", ""):
        assert mask(text) == text


@pytest.fixture
def secret_settings(settings):
    """Settings that carry the Redis password the way a deployment's do, with DEBUG on."""
    settings.DEBUG = True
    settings.REDIS_URL = SECRET_URL
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [SECRET_URL]}}
    }
    # An extra cache alias, so that nothing in this test talks to the made-up server.
    settings.CACHES = {
        **settings.CACHES,
        "spare": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": SECRET_URL},
    }
    return settings


def _crash(url):
    raise RuntimeError("the view fell over")


def test_the_debug_page_never_shows_the_redis_password(secret_settings):
    safe = UrlPasswordFilter().get_safe_settings()
    assert SECRET not in repr(safe)
    assert safe["REDIS_URL"].startswith("redis://default:*")
    request = RequestFactory().get("/", REDIS_URL=SECRET_URL)  # e.g. WSGI copies the environment
    try:
        _crash(SECRET_URL)  # a frame variable holding the URL
    except RuntimeError:
        response = technical_500_response(request, *sys.exc_info())
    html = response.content.decode()
    assert "the view fell over" in html and "REDIS_URL" in html
    assert SECRET not in html


def test_the_secret_key_file_is_private_from_the_start(tmp_path, monkeypatch):
    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)

    def no_chmod(*args, **kwargs):
        raise AssertionError("created with wide rights, then narrowed")

    monkeypatch.setattr(os, "chmod", no_chmod)
    monkeypatch.setattr(Path, "chmod", no_chmod)
    old_umask = os.umask(0)  # even a permissive umask gives 0600
    try:
        path = tmp_path / ".secret_key"
        key = load_secret_key(path)
    finally:
        os.umask(old_umask)
    assert len(key) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_secret_key(path) == key  # generated once, then read
    monkeypatch.setenv("DJANGO_SECRET_KEY", "from-the-environment")
    assert load_secret_key(tmp_path / "unused") == "from-the-environment"
    assert not (tmp_path / "unused").exists()


def test_every_page_has_a_strict_content_security_policy(client):
    response = client.get("/")
    policy = response["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split("; ")}
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert "'unsafe-eval'" not in policy and "'unsafe-inline'" not in policy
    assert client.get("/no-such-page/")["Content-Security-Policy"] == policy
    html = response.content.decode()
    # The page's scripts are files; htmx must not inject its indicator <style>, which the policy refuses.
    assert '"includeIndicatorStyles":false' in html
    assert re.search(r'<script src="[^"]*js/forms\.js" defer>', html)
    assert 'data-reconnecting="Reconnecting…"' in html


def _templates():
    files = [*sorted((BASE_DIR / "templates").rglob("*.html")), *sorted((BASE_DIR / "templates").rglob("*.jinja")),
             *sorted(BASE_DIR.glob("*/templates/**/*.html"))]
    assert files
    return files


INLINE = [
    (re.compile(r"""\son[a-z]+\s*=""", re.I), "an inline on*= handler"),
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "an inline <script>"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
    (re.compile(r"""<style|\sstyle\s*=""", re.I), "an inline style (style-src 'self' refuses it)"),
]


@pytest.mark.parametrize("template", _templates(), ids=lambda p: str(p.relative_to(BASE_DIR)))
def test_no_template_has_inline_script_or_style(template):
    text = template.read_text()
    for pattern, what in INLINE:
        match = pattern.search(text)
        assert match is None, f"{what} in {template.relative_to(BASE_DIR)}: {match and match.group(0)}"
