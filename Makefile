# The two commands: `make run` (serve on all interfaces) and `make test` (every test).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# Tests run against the real PostgreSQL and Redis of this machine kind.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/tablegames
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: install run serve test services browser lint check-deploy simulate messages cluster cluster-check \
	cluster-down cluster-figures cluster-packages

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

install: $(BIN)/.installed

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v0
	@$(BIN)/python -c "from lobby.network import lan_ip; print(\"Phones on this Wi-Fi: open http://%s:$(PORT)/\" % lan_ip())"
	$(BIN)/daphne -b 0.0.0.0 -p $(PORT) config.asgi:application

# Production-like: SERVE_PROCESSES daphne processes on one shared socket plus one game worker,
# under supervisor, on PostgreSQL and Redis (see docs/deploy.md). Ctrl-C stops everything.
SERVE_PROCESSES ?= 2
SERVE_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/tablegames
SERVE_REDIS_URL ?= redis://127.0.0.1:6379/1
serve: install services
	@psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='tablegames'" | grep -q 1 \
		|| createdb -h 127.0.0.1 -U postgres tablegames
	DATABASE_URL=$(SERVE_DATABASE_URL) $(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py collectstatic --noinput -v0
	@mkdir -p .serve
	@$(BIN)/python -c "from lobby.network import lan_ip; print(\"Phones on this Wi-Fi: open http://%s:$(PORT)/\" % lan_ip())"
	DATABASE_URL=$(SERVE_DATABASE_URL) REDIS_URL=$(SERVE_REDIS_URL) SERVE_DIR=$(CURDIR)/.serve \
		SERVE_ROOT=$(CURDIR) SERVE_BIN=$(CURDIR)/$(BIN) SERVE_HOST=0.0.0.0 PORT=$(PORT) \
		SERVE_PROCESSES=$(SERVE_PROCESSES) $(BIN)/supervisord -c config/supervisord.conf

# Start PostgreSQL and Redis if they are down; fail saying what to install if they are missing.
services:
	@command -v redis-server >/dev/null || { echo "Redis is missing: apt-get install redis-server"; exit 1; }
	@command -v pg_ctlcluster >/dev/null || { echo "PostgreSQL is missing: apt-get install postgresql"; exit 1; }
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /tmp
	@pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql | head -n1) main start
	@for i in 1 2 3 4 5 6 7 8 9 10; do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432 && exit 0; sleep 1; done; \
		echo "PostgreSQL on 127.0.0.1:5432 or Redis on 127.0.0.1:6379 did not start"; exit 1

# The browser tests drive Debian's Chromium, with fonts that draw Persian, Japanese and emoji (so the
# screenshots in docs/screens/ show real text), and phones in WebKit (Safari's engine: WebKitGTK's
# WebKitWebDriver on an Xvfb screen) and Firefox ESR (over WebDriver BiDi) beside it
# (tests/e2e/test_every_engine_browser.py); as root we install them, otherwise we say how.
FONT_PACKAGES := fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
browser:
	@command -v chromium >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing chromium (apt-get)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "Chromium is missing: sudo apt-get install chromium"; exit 1; fi; }
	@[ "$$(dpkg-query -W -f='$${Status}\n' $(FONT_PACKAGES) 2>/dev/null | grep -c 'install ok installed')" = 3 ] || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing fonts (apt-get): $(FONT_PACKAGES)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FONT_PACKAGES) >/dev/null; \
		else echo "Fonts for Persian, Japanese and emoji are missing: sudo apt-get install $(FONT_PACKAGES)"; exit 1; fi; }
	@missing=""; command -v WebKitWebDriver >/dev/null || missing="$$missing webkit2gtk-driver"; \
		command -v Xvfb >/dev/null || missing="$$missing xvfb"; \
		command -v firefox-esr >/dev/null || missing="$$missing firefox-esr"; \
		[ -z "$$missing" ] || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing WebKit and Firefox (apt-get):$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else echo "WebKit and Firefox for the phones in every engine are missing: sudo apt-get install$$missing"; exit 1; fi; }

# Several hosts on this machine (issue 46, docs/deploy.md): network namespaces for two or three app hosts (what
# `make serve` runs), one for PostgreSQL and Redis, and HAProxy in front, at http://10.46.0.10:8000/. Needs root.
# `make cluster` starts it and waits (Ctrl-C stops it and removes everything); `make cluster-check` is the proof
# (also in `make test`: tests/cluster/); `make cluster-figures` the load tool through the balancer at 1, 2, 3 hosts.
CLUSTER_HOSTS ?= 3
CLUSTER_PROCESSES ?= 1
cluster-packages:
	@command -v haproxy >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing haproxy (apt-get)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; \
		else echo "HAProxy is missing (and the cluster needs root): sudo apt-get install haproxy"; exit 1; fi; }

cluster: install cluster-packages
	$(BIN)/python -m tools.cluster up --hosts $(CLUSTER_HOSTS) --processes $(CLUSTER_PROCESSES)

cluster-down: install
	$(BIN)/python -m tools.cluster down

cluster-check: install cluster-packages
	$(BIN)/pytest tests/cluster -p no:cacheprovider

cluster-figures: install cluster-packages
	$(BIN)/python -m tools.cluster figures --hosts 1,2,3 --seconds 60

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

test: install services browser cluster-packages lint
	$(BIN)/python manage.py check
	DATABASE_URL=$(TEST_DATABASE_URL) TEST_REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest

check-deploy: install
	DJANGO_HTTPS=1 DJANGO_DEBUG=0 DJANGO_SECRET_KEY=$$($(BIN)/python -c 'import secrets;print(secrets.token_urlsafe(64))') \
		$(BIN)/python manage.py check --deploy --fail-level WARNING

simulate: install
	$(BIN)/python manage.py simulate $(GAME) --players $(PLAYERS) --games $(GAMES)

messages: install
	$(BIN)/python manage.py makemessages -l fa -l ja --ignore=.venv --ignore=tests --ignore=test-artifacts
	$(BIN)/python manage.py compilemessages --ignore=.venv
