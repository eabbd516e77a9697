"""Settings from the environment (12-factor). See README.md for every variable."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool = False) -> bool:
    """A boolean from the environment: 1/true/yes/on."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def load_secret_key(path: Path) -> str:
    """DJANGO_SECRET_KEY, or one generated once into ``path`` (git-ignored), readable by its owner only.

    The file is created with mode 0600 in the same call that creates it (O_EXCL), so the key is
    never on disk with wider rights, not even for a moment; a second process racing to create it
    reads the first one's key.
    """
    key = os.environ.get("DJANGO_SECRET_KEY")
    if key:
        return key
    for _attempt in range(50):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            key = path.read_text().strip()
            if key:
                return key
            time.sleep(0.02)  # the other process has created the file but not yet written it
            continue
        key = secrets.token_urlsafe(64)
        with os.fdopen(fd, "w") as out:
            out.write(key)
        return key
    raise ImproperlyConfigured(f"{path} stays empty: delete it, or set DJANGO_SECRET_KEY")


SECRET_KEY = load_secret_key(BASE_DIR / ".secret_key")
DEBUG = env_flag("DJANGO_DEBUG")
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

HTTPS = env_flag("DJANGO_HTTPS")
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]  # the balancer's own health check comes over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "django_ratelimit",
    "csp",
    "lobby",
    "gameplay",
    "community",
    "tools",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Above WhiteNoise, so that static files get the policy too.
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.player: this browser's Player (account or guest), looked up lazily.
    "lobby.middleware.PlayerMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A limit raised deep in a view (a table lookup by code) is answered 429 by RATELIMIT_VIEW.
    "django_ratelimit.middleware.RatelimitMiddleware",
    # A lost database connection (a restart, an outage) answers 503 and the page retries.
    "infra.resilience.DatabaseUnavailableMiddleware",
]
RATELIMIT_VIEW = "infra.limits.ratelimited_view"

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        # The screens (phone panel, board, moderator's drawer) and the games' templates: *.jinja, plain Jinja with the
        # project's filters and globals (gameplay/screens/jinja.py). Any other name is the next backend's.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {"environment": "gameplay.screens.jinja.environment"},
    },
    {
        # The pages (*.html): Django's templates; a page shows a Jinja part with {% jinja name key=value %}.
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "lobby.context_processors.player",
            ],
            # game_tags and Django's i18n tags in every page, without a {% load %}.
            "builtins": ["gameplay.templatetags.game_tags", "django.templatetags.i18n"],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=60, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Moves from several phones at once: wait for the write lock instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    # Write-ahead logging: pages read while a move writes (readers never wait for the writer),
    # and a commit costs one append instead of a journal rewrite. "timeout" is the busy timeout.
    DATABASES["default"]["OPTIONS"]["init_command"] = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
    # A file, not shared memory, so that threads in tests lock it as processes would.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}

elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_flag("DATABASE_POOL", True):
    # A bounded pool per process (psycopg_pool through Django): however many requests run at
    # once, this process holds at most DATABASE_POOL_SIZE connections; a request that finds
    # them all busy waits up to 10 s for one, then answers 503 (infra/resilience.py), never
    # "too many clients". Connections return to the pool at the end of each request.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "12")),
        "timeout": 10,
        "max_idle": 60,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    from infra.redis_layer import redis_channel_layer

    # Its connections notice a Redis restart, so the socket hub joins its groups again (infra/redis_layer.py).
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
else:
    # Channels' in-memory layer, sweeping for expired messages once a second, not on every receive
    # (infra/layers.py: at a café's 1,600 sockets the sweep on every receive took nearly half a core).
    CHANNEL_LAYERS = {"default": {"BACKEND": "infra.layers.InMemoryChannelLayer"}}

# Entries of the in-process cache (no REDIS_URL): 200 tables of 7 phones and a board hold about
# 3,500 at once (sessions, presence marks, a board partial a table and language).
LOCAL_CACHE_ENTRIES = 20_000
# The cache holds the abuse limits' counters (django-ratelimit needs an atomic incr): Redis when
# several processes serve the app, so that they count together; else this process's memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "infra.cache.SharedRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "tablegames",
            # Short, so a frozen Redis costs a page half a second once (see infra/resilience.py).
            "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
        }
    }
    # django-ratelimit knows only django-redis's backend by name; Django's own has the same atomic INCR.
    SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
else:
    # Room for a café on one box: a session and a presence mark a phone, a board partial a table and
    # language (Django's default of 300 entries would evict sessions and marks from about 20 tables on,
    # and a phone whose mark was evicted reads as asleep). Least recently used entries go first.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                          "OPTIONS": {"MAX_ENTRIES": LOCAL_CACHE_ENTRIES}}}
    # Not shared between processes, but without REDIS_URL there is only this one (like the
    # in-memory channel layer); its incr holds a lock, so it is atomic for this process's threads.
    SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]
# Sessions from the cache first (infra/sessions.py): one query fewer per page and per pushed
# partial. The cache is shared by every process (Redis), or there is only this one.
SESSION_ENGINE = "infra.sessions"

# Render every public fragment made with a reused part again and compare (gameplay.screens.pieces): tests only.
SCREEN_PIECES_VERIFY = env_flag("SCREEN_PIECES_VERIFY")

# Abuse limits per client (REMOTE_ADDR: every phone on the Wi-Fi has its own), far above what a
# game night does; see README.md. A limited request answers 429 and changes nothing.
RATELIMIT_ENABLE = env_flag("DJANGO_RATELIMIT", True)
RATELIMITS = {
    "code_miss": "20/m",  # unknown table codes tried (/find/, a name given with a join code)
    "login_ip": "10/m",  # log-in attempts from one address, any usernames
    "login_pair": "5/m",  # log-in attempts from one address at one (normalised) username
    # Every address at one username: past it, an address that already tried that name this minute
    # waits (config/limits.login_limited); an address that has not, the owner's, still gets in.
    "login_user": "30/h",
    "signup": "20/h",  # attempts, typos too: one laptop may sign up a whole table
    "table_create": "30/h",
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fa", _("Persian")), ("ja", _("Japanese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# A game's stylesheet lives in its template folder (templates/games/<engine>/static/<engine>.css) and is
# served, as the pages link it, at css/games/<engine>.css.
STATICFILES_DIRS: list = [("css/games", folder) for folder in sorted(BASE_DIR.glob("templates/games/*/static"))]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Without collectstatic (development, tests): plain storage, files served from the apps.
PLAIN_STATIC = DEBUG or env_flag("DJANGO_PLAIN_STATIC")
if PLAIN_STATIC:
    STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    WHITENOISE_USE_FINDERS = True

# An oversized form is refused before any view sees it.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200

SESSION_COOKIE_AGE = 60 * 60 * 24 * 90
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# Content-Security-Policy on every response (django-csp 4): scripts and styles only from our own
# static files, so no inline handler, inline <script> or <style> runs; htmx is told not to inject
# its indicator <style> (templates/base.html). 'self' in connect-src covers the same-origin socket.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# The debug page and error reports star passwords inside URLs too (REDIS_URL and the like).
DEFAULT_EXCEPTION_REPORTER_FILTER = "infra.reporting.UrlPasswordFilter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
