"""A cluster of test hosts on this one machine: Linux network namespaces joined by a bridge (issue 46).

    python -m tools.cluster up [--hosts 3] [--processes 1]    # start, then wait; Ctrl-C stops and cleans up
    python -m tools.cluster down                                # remove whatever a cluster left behind

Each namespace is a host with an address of its own on the bridge ``tgcl0`` (10.46.0.0/24):

- ``tgcl-data`` (10.46.0.2): PostgreSQL (a private cluster, ``initdb`` into the state folder, run as the
  ``postgres`` user; database ``tablegames_cl``) and ``redis-server`` (no persistence), both on that address;
- ``tgcl-app1`` … ``tgcl-appN`` (10.46.0.11 …): the app as ``make serve`` runs it: supervisor with
  ``config/supervisord.conf`` (daphne processes on one shared socket, port 8000, and the game worker), the only
  change being daphne's ``--proxy-headers``. An app host has routes to the balancer and the data host only (its
  address is a /32): nobody else can open a connection to it, so the forwarded client address and protocol it
  trusts come from the balancer alone;
- ``tgcl-lb`` (10.46.0.10): HAProxy (Debian's), port 8000, round robin without stickiness, websockets, health
  checks every second; it overwrites X-Forwarded-For/-Proto/-Port with what it saw;
- the machine itself is 10.46.0.1 on the bridge: the phones (test clients) and the operator (it reads the
  database, kills hosts).

Everything runs from a copy of the code (``tools.chaos.copy_code``) in the state folder (``/tmp/tablegames-cluster``
by default), so that edits to the working tree cannot mix two versions in one cluster. Killing a host
(``Cluster.kill_host``) kills every process in its namespace with SIGKILL and deletes its link at once.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
NET = "10.46.0"
BRIDGE = "tgcl0"
PREFIX = "tgcl-"
ADMIN = f"{NET}.1"  # this machine on the bridge: the phones and the operator
DATA = f"{NET}.2"
BALANCER = f"{NET}.10"
APP_PORT = 8000
# The balancer's port, as on `make serve` (a port in the address, so that the tools' Origin matches the Host).
PORT = 8000
DB_NAME = "tablegames_cl"
STATE = Path(os.environ.get("CLUSTER_STATE", "/tmp/tablegames-cluster"))
LOCK = Path("/tmp/tablegames-cluster.lock")  # one cluster at a time on this machine (the names are fixed)
APT_PACKAGES = {"haproxy": "haproxy", "redis-server": "redis-server", "ip": "iproute2"}


class ClusterError(RuntimeError):
    """The cluster could not be started (the message says why and what to do)."""


def app_address(host: int) -> str:
    """The address of app host ``host`` (1, 2, …)."""
    return f"{NET}.{10 + host}"


def run(*args: str, check: bool = True, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    if check and done.returncode:
        raise ClusterError(f"{' '.join(args)}: rc {done.returncode}: {(done.stderr or done.stdout).strip()[:400]}")
    return done


def require_root() -> None:
    if os.geteuid() != 0:
        raise ClusterError("the cluster needs root (network namespaces, veth pairs and a bridge: `ip netns add`); "
                           "run `make cluster` / `make cluster-check` as root")


def ensure_packages() -> None:
    """HAProxy (and Redis, iproute2) from Debian: installed with apt-get when missing (we are root)."""
    missing = sorted({package for command, package in APT_PACKAGES.items() if shutil.which(command) is None})
    if not missing:
        return
    if shutil.which("apt-get") is None:
        raise ClusterError(f"missing: {' '.join(missing)} (and no apt-get to install them)")
    print(f"cluster: installing {' '.join(missing)} (apt-get)", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for args in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise ClusterError(f"{' '.join(args)} failed: {done.stderr.strip()[-400:]}")


def postgres_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    if not versions:
        raise ClusterError("PostgreSQL's server binaries are missing: apt-get install postgresql")
    return versions[-1].parent


def namespaces() -> list[str]:
    listing = run("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in listing.splitlines() if line.startswith(PREFIX)]


def netns_pids(name: str) -> list[int]:
    done = run("ip", "netns", "pids", name, check=False)
    return [int(pid) for pid in done.stdout.split() if pid.isdigit()]


def kill_namespace_processes(name: str) -> int:
    """SIGKILL every process in namespace ``name`` (again until none is left); how many were killed."""
    killed = 0
    for _ in range(20):
        pids = netns_pids(name)
        if not pids:
            return killed
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    return killed


def hold_lock(wait: float = 600.0) -> IO[str]:
    """The machine's cluster lock, held while the returned file stays open: a second cluster (another
    ``make test``) waits for the first to finish rather than tearing it down."""
    handle = open(LOCK, "a")  # noqa: SIM115 (held open on purpose)
    deadline = time.time() + wait
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.time() > deadline:
                handle.close()
                raise ClusterError(f"another cluster has held {LOCK} for {wait:.0f} s") from None
            time.sleep(1.0)


def down(say: Callable[[str], None] = print) -> None:
    """Remove every namespace, link and process a cluster left (safe to run when nothing is there)."""
    found = namespaces()
    for name in found:
        kill_namespace_processes(name)
    for name in found:
        run("ip", "netns", "del", name, check=False)
    links = run("ip", "-o", "link", "show", check=False).stdout
    for link in re.findall(r"^\d+: (tgcl[\w-]*?)(?:@\S+)?:", links, re.MULTILINE):
        run("ip", "link", "del", link, check=False)
    pg_data = STATE / "pg"
    if pg_data.exists():
        shutil.rmtree(pg_data, ignore_errors=True)
    if found:
        say(f"cluster: removed {', '.join(found)} and bridge {BRIDGE}")


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def haproxy_config(hosts: int, state: Path, socket_balance: str = "roundrobin") -> str:
    """HAProxy's config. ``socket_balance``: ``roundrobin`` (a table's sockets spread over the hosts in turn) or
    ``table`` (a table's sockets hashed by their path, /ws/t/CODE/, onto one host while it is up)."""
    balance = "roundrobin" if socket_balance == "roundrobin" else "uri\n    hash-type consistent"
    servers = "\n".join(f"    server app{i} {app_address(i)}:{APP_PORT} check" for i in range(1, hosts + 1))
    tracked = "\n".join(f"    server app{i} {app_address(i)}:{APP_PORT} track web/app{i}"
                        for i in range(1, hosts + 1))
    return f"""# Generated by tools/cluster/cluster.py: the balancer in front of the app hosts (docs/deploy.md).
global
    log stdout format raw local0
    stats socket {state}/haproxy.sock mode 600 level admin
    maxconn 4000

defaults
    mode http
    log global
    # One line per request, written when the answer's headers pass (a socket's 101 too): when, who, where.
    option logasap
    log-format "%Ts.%ms %ci:%cp %b/%s %ST %{{+Q}}r"
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # An open websocket: the page's heartbeat every 15 s keeps it well inside this.
    timeout tunnel 1h
    timeout http-request 10s
    option redispatch
    retries 2

frontend phones
    bind {BALANCER}:{PORT}
    # What the app trusts (daphne --proxy-headers, SECURE_PROXY_SSL_HEADER): set here, never passed on.
    http-request del-header Forwarded
    http-request set-header X-Forwarded-For %[src]
    http-request set-header X-Forwarded-Port %[dst_port]
    http-request set-header X-Forwarded-Proto https if {{ ssl_fc }}
    http-request set-header X-Forwarded-Proto http if !{{ ssl_fc }}
    use_backend sockets if {{ path_beg /ws/ }}
    default_backend web

# Pages, moves, static files: any host (no stickiness; sessions, limits and pushes are shared).
backend web
    balance roundrobin
    option httpchk
    http-check send meth GET uri /health/ ver HTTP/1.1 hdr Host {BALANCER}
    http-check expect status 200
    default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2 on-marked-down shutdown-sessions
{servers}

# Table sockets: any host too; a host marked down has its sockets closed, and the pages reconnect.
backend sockets
    balance {balance}
    default-server on-marked-down shutdown-sessions
{tracked}
"""


class Cluster:
    """The cluster's hosts and processes; ``up`` starts it, ``down`` removes it (and whatever an earlier one left)."""

    def __init__(self, hosts: int = 3, processes: int = 1, state: Path = STATE,
                 say: Callable[[str], None] = print, extra_env: dict[str, str] | None = None,
                 socket_balance: str = "roundrobin") -> None:
        if not 1 <= hosts <= 8:
            raise ClusterError("--hosts must be 1-8")
        if socket_balance not in ("roundrobin", "table"):
            raise ClusterError("socket balance: roundrobin or table")
        self.socket_balance = socket_balance
        self.hosts, self.processes, self.state, self.say = hosts, processes, state, say
        self.extra_env = extra_env or {}
        self.code = state / "code"
        self.secret = secrets.token_urlsafe(50)
        self.killed: set[int] = set()
        self.lock: IO[str] | None = None

    # ------------------------------------------------------------------ addresses

    @property
    def url(self) -> str:
        return f"http://{BALANCER}:{PORT}"

    @property
    def database_url(self) -> str:
        return f"postgres://postgres@{DATA}:5432/{DB_NAME}"

    @property
    def redis_url(self) -> str:
        return f"redis://{DATA}:6379/0"

    def app_env(self) -> dict[str, str]:
        """The environment of every app process and of this machine's management commands against the cluster."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": os.environ.get("HOME", "/root"),
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "DJANGO_SECRET_KEY": self.secret,
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": BALANCER,
            "DJANGO_CSRF_TRUSTED_ORIGINS": f"http://{BALANCER}:{PORT}",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    # ------------------------------------------------------------------ up

    def up(self) -> None:
        require_root()
        ensure_packages()
        if self.lock is None:
            self.lock = hold_lock()
        down(self.say)
        started = time.time()
        if self.state.exists():
            shutil.rmtree(self.state)
        self.state.mkdir(parents=True)
        self._network()
        self._code()
        self._data_host()
        self._migrate()
        for host in range(1, self.hosts + 1):
            self._app_host(host)
        self._balancer()
        self._wait_up(started)

    def _netns(self, name: str, address: str, *, private: bool = False) -> None:
        """A namespace ``tgcl-<name>`` with one veth into the bridge; ``private``: routes to the balancer and the
        data host only."""
        ns, link = PREFIX + name, f"tgcl-{name}"[:15]
        run("ip", "netns", "add", ns)
        run("ip", "link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns)
        run("ip", "link", "set", link, "master", BRIDGE, "up")
        run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "-n", ns, "link", "set", "eth0", "up")
        if private:
            run("ip", "-n", ns, "addr", "add", f"{address}/32", "dev", "eth0")
            for peer in (BALANCER, DATA):
                run("ip", "-n", ns, "route", "add", f"{peer}/32", "dev", "eth0")
        else:
            run("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")

    def _network(self) -> None:
        run("ip", "link", "add", BRIDGE, "type", "bridge")
        run("ip", "addr", "add", f"{ADMIN}/24", "dev", BRIDGE)
        run("ip", "link", "set", BRIDGE, "up")
        self._netns("data", DATA)
        self._netns("lb", BALANCER)
        for host in range(1, self.hosts + 1):
            self._netns(f"app{host}", app_address(host), private=True)
        self.say(f"cluster: bridge {BRIDGE} ({NET}.0/24, this machine {ADMIN}); hosts tgcl-data {DATA}, "
                 f"tgcl-lb {BALANCER}, " + ", ".join(f"tgcl-app{h} {app_address(h)}"
                                                     for h in range(1, self.hosts + 1)))

    def _code(self) -> None:
        from tools.chaos import copy_code

        copy_code(ROOT, self.code)
        done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=self.code,
                              env={**self.app_env(), "DATABASE_URL": "sqlite:///:memory:", "REDIS_URL": ""},
                              capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise ClusterError(f"collectstatic failed: {done.stderr.strip()[-600:]}")

    def spawn(self, ns: str, args: list[str], log: str, *, env: dict[str, str] | None = None,
              cwd: Path | None = None, user: str = "") -> subprocess.Popen[bytes]:
        """A process inside namespace ``ns`` (as ``user`` if given), its output appended to ``log`` in the state."""
        command = ["ip", "netns", "exec", PREFIX + ns]
        if user:
            command += ["runuser", "-u", user, "--"]
        with open(self.state / log, "ab") as out:
            return subprocess.Popen(command + args, stdout=out, stderr=subprocess.STDOUT, env=env or self.app_env(),
                                    cwd=cwd or self.state, start_new_session=True)

    def _data_host(self) -> None:
        pg_bin = postgres_bin()
        data, sockets = self.state / "pg", self.state / "pg-run"
        for folder in (data, sockets):
            folder.mkdir()
            shutil.chown(folder, "postgres", "postgres")
        os.chmod(self.state, 0o755)
        run("runuser", "-u", "postgres", "--", str(pg_bin / "initdb"), "-D", str(data), "-A", "trust", "-U",
            "postgres", "--no-sync", timeout=120)
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {NET}.0/24 trust\n")
        # fsync off: a test cluster that is thrown away; the host that dies here is an app host, never this one.
        self.spawn("data", [str(pg_bin / "postgres"), "-D", str(data), "-c", f"listen_addresses={DATA}",
                            "-c", "port=5432", "-c", f"unix_socket_directories={sockets}", "-c",
                            "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
                   "postgres.log", user="postgres")
        self.spawn("data", ["redis-server", "--bind", DATA, "--port", "6379", "--save", "", "--appendonly", "no",
                            "--protected-mode", "no", "--dir", str(self.state)], "redis.log")
        deadline = time.time() + 60
        while not (port_open(DATA, 5432) and port_open(DATA, 6379)):
            if time.time() > deadline:
                raise ClusterError(f"PostgreSQL or Redis did not start on {DATA}; see {self.state}/postgres.log")
            time.sleep(0.2)
        for _ in range(50):
            done = run(str(pg_bin / "createdb"), "-h", DATA, "-U", "postgres", DB_NAME, check=False)
            if done.returncode == 0:
                break
            time.sleep(0.2)
        else:
            raise ClusterError(f"createdb {DB_NAME} failed: {done.stderr.strip()}")

    def _migrate(self) -> None:
        """Once per release, from one machine (here: this one, against the data host)."""
        done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=self.code,
                              env=self.app_env(), capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise ClusterError(f"migrate failed: {done.stderr.strip()[-600:]}")

    def supervisor_config(self) -> Path:
        """``config/supervisord.conf`` as it is, daphne behind the balancer (``--proxy-headers``)."""
        text = (self.code / "config" / "supervisord.conf").read_text()
        changed = text.replace("/daphne --fd 0", "/daphne --proxy-headers --fd 0")
        if changed == text:
            raise ClusterError("config/supervisord.conf has no 'daphne --fd 0' command to add --proxy-headers to")
        path = self.state / "supervisord.conf"
        path.write_text(changed)
        return path

    def _app_host(self, host: int) -> None:
        serve_dir = self.state / f"app{host}"
        serve_dir.mkdir()
        venv_bin = Path(sys.executable).parent
        env = {**self.app_env(), "SERVE_DIR": str(serve_dir), "SERVE_ROOT": str(self.code),
               "SERVE_BIN": str(venv_bin), "SERVE_HOST": "0.0.0.0", "PORT": str(APP_PORT),
               "SERVE_PROCESSES": str(self.processes)}
        self.spawn(f"app{host}", [str(venv_bin / "supervisord"), "-c", str(self.supervisor_config())],
                   f"app{host}/supervisor.out", env=env, cwd=self.code)

    def _balancer(self) -> None:
        config = self.state / "haproxy.cfg"
        config.write_text(haproxy_config(self.hosts, self.state, self.socket_balance))
        run("haproxy", "-c", "-q", "-f", str(config))
        self.spawn("lb", ["haproxy", "-db", "-f", str(config)], "haproxy.log")

    def server_states(self) -> dict[str, str]:
        """HAProxy's view of the web backend: app name -> UP/DOWN/..., from its stats socket."""
        try:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.settimeout(2)
                conn.connect(str(self.state / "haproxy.sock"))
                conn.sendall(b"show stat\n")
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
        except OSError:
            return {}
        states = {}
        for line in data.decode(errors="replace").splitlines():
            fields = line.split(",")
            if len(fields) > 17 and fields[0] == "web" and fields[1].startswith("app"):
                states[fields[1]] = fields[17]
        return states

    def _wait_up(self, started: float, timeout: float = 120.0) -> None:
        deadline = time.time() + timeout
        while True:
            states = self.server_states()
            if states and all(s == "UP" for s in states.values()) and len(states) == self.hosts:
                break
            if time.time() > deadline:
                raise ClusterError(f"not every app host came up in {timeout:.0f} s: {states or 'no HAProxy'}; "
                                   f"logs in {self.state}")
            time.sleep(0.5)
        self.say(f"cluster: up in {time.time() - started:.1f} s: {self.url} (HAProxy) -> "
                 f"{self.hosts} app hosts x ({self.processes} daphne + game worker); PostgreSQL and Redis on "
                 f"{DATA}; logs in {self.state}")

    # ------------------------------------------------------------------ while it runs

    def host_pids(self, host: int) -> list[int]:
        return netns_pids(f"{PREFIX}app{host}")

    def kill_host(self, host: int) -> tuple[float, int]:
        """The host is gone at once: SIGKILL to every process in its namespace, and its link deleted.
        Returns (when, how many processes were killed)."""
        ns = f"{PREFIX}app{host}"
        pids = netns_pids(ns)
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)  # none of them gets to say goodbye while the others die
        when = time.time()
        run("ip", "link", "del", f"tgcl-app{host}")
        killed = kill_namespace_processes(ns)
        self.killed.add(host)
        return when, killed

    def cut_data_host(self, host: int, cut: bool = True) -> None:
        """The host loses its route to the data host (PostgreSQL and Redis), or (``cut=False``) has it again; its
        processes and its link to the balancer stay."""
        ns = f"{PREFIX}app{host}"
        route = ["unreachable", f"{DATA}/32"] if cut else [f"{DATA}/32", "dev", "eth0"]
        run("ip", "-n", ns, "route", "replace", *route)

    def down(self) -> None:
        """Stop and remove this cluster, and let the next one start."""
        try:
            down(self.say)
        finally:
            if self.lock is not None:
                self.lock.close()
                self.lock = None

    def balancer_log(self) -> str:
        return (self.state / "haproxy.log").read_text(errors="replace")


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops the cluster as Ctrl-C does: through the clean-up."""
    raise KeyboardInterrupt

