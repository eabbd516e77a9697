'use strict';
// Load driver for a boardgame.io server, in the shape of `manage.py loadtest` (issue 25):
//
// - Setup, over the lobby REST API: per match POST /games/<name>/create (5, 6, 7 players in
//   turn, as the load tool seats its tables), then POST /games/<name>/<matchID>/join for each
//   seat, which hands back that seat's credentials.
// - Play: per match one boardgame.io Client per player (its own socket.io websocket: forceNew,
//   websocket transport only) and one spectator Client (no playerID: the board). Per match a
//   driver, every ~think seconds (think * uniform(0.5, 1.5), the first tick within the first
//   think), picks one player whose own view says it may move (the leader proposing, one of the
//   players whose vote is still awaited, one of the team members whose card is awaited), makes a
//   random legal move and waits for the server's answer (that player's state moving past the
//   stateID it moved from), as the load tool awaits its POST. Between games (gameover) the driver
//   deals the next match: create, join, new clients; that is no move.
// - Figures, inside the measured window only (after the warm-up): moves accepted, moves/s, the
//   server process's CPU from /proc/<pid>/stat (utime + stime over CLK_TCK) as % of one core and
//   as ms per move, the driver's own CPU (process.cpuUsage), the mover's answer latency and
//   "tap -> every other screen" (until every other client of the match, the spectator too, holds
//   a state at least as new as the move's). Errors count over the whole run.
//
//   node driver.js --pid SERVER_PID [--url http://127.0.0.1:8390] [--matches 1] [--duration 30]
//                  [--warmup 5] [--think 2.0] [--seed 1]
//
// Loopback only: the URL must be on 127.0.0.0/8 or localhost. Every loop is bounded by the
// window's end, and a hard deadline ends the process whatever happens.

const fs = require('fs');
const { execFileSync } = require('child_process');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { InsideJobLite, TEAM_SIZES } = require('./game');

const GAME = InsideJobLite.name;
const PHONES = [5, 6, 7];
const ANSWER_WITHIN = 10_000; // ms: a move with no answer by then is a timeout
const CAUGHT_UP_WITHIN = 10_000; // ms: screens not caught up by then: an error
const DRAIN = 3_000; // ms after the window for the last moves' screens

function parseArgs(argv) {
  const opts = { url: 'http://127.0.0.1:8390', matches: 1, duration: 30, warmup: 5, think: 2.0, seed: 1, pid: null };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[i + 1];
    if (!(key in opts) || value === undefined) throw new Error(`unknown or empty option ${argv[i]}`);
    opts[key] = key === 'url' ? value : Number(value);
  }
  const host = new URL(opts.url).hostname;
  if (!(host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host))) throw new Error(`not a loopback URL: ${opts.url}`);
  if (!(opts.matches >= 1 && opts.matches <= 500 && Number.isInteger(opts.matches))) throw new Error('--matches: 1..500');
  if (!(opts.duration > 0 && opts.duration <= 600)) throw new Error('--duration: (0, 600] s');
  if (!(opts.warmup >= 0 && opts.warmup <= 120)) throw new Error('--warmup: [0, 120] s');
  if (!(opts.think > 0)) throw new Error('--think must be positive');
  if (!Number.isInteger(opts.pid) || opts.pid <= 0) throw new Error('--pid SERVER_PID is required');
  opts.url = opts.url.replace(/\/$/, '');
  return opts;
}

// A small seeded PRNG (mulberry32), so that a run's choices repeat with its seed.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.uniform = (lo, hi) => lo + (hi - lo) * next();
  next.choice = (xs) => xs[Math.floor(next() * xs.length)];
  next.sample = (xs, k) => {
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, k);
  };
  return next;
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

function serverCpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime (14), stime (15)
}

function serverRssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
}

const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const now = () => performance.now();

function percentile(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10;
}

async function lobby(url, path, body) {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const res = await fetch(`${url}/games/${GAME}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      if (res.ok) return await res.json();
      throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    } catch (error) {
      if (attempt === 4) throw error;
      await sleep(200 * 2 ** attempt);
    }
  }
  throw new Error('unreachable');
}

// Runs jobs with at most `limit` in flight.
async function pooled(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

class Figures {
  constructor() {
    this.from = Infinity;
    this.to = Infinity;
    this.moves = 0;
    this.answer = [];
    this.tapToAll = [];
    this.errors = {};
    this.deals = 0;
  }
  inWindow(t) { return t >= this.from && t < this.to; }
  error(kind) { this.errors[kind] = (this.errors[kind] || 0) + 1; }
}

class Screen {
  // One client: a player's phone (playerID) or the board (spectator, playerID undefined).
  constructor(match, playerID, credentials) {
    this.match = match;
    this.playerID = playerID;
    this.stateID = -1;
    this.state = null;
    this.client = Client({
      game: InsideJobLite,
      numPlayers: match.players,
      matchID: match.matchID,
      playerID,
      credentials,
      debug: false,
      multiplayer: SocketIO({
        server: match.run.opts.url,
        socketOpts: { transports: ['websocket'], forceNew: true, reconnection: true },
      }),
    });
    this.unsubscribe = this.client.subscribe((state) => this.onState(state));
  }
  start() {
    this.client.start();
    // A socket that drops while the run still needs it is an error (reconnects are socket.io's).
    this.client.transport.socket.on('disconnect', () => {
      if (!this.stopped && !this.match.run.closing) this.match.run.figures.error('socket drop');
    });
  }
  stop() {
    this.stopped = true;
    this.unsubscribe();
    this.client.stop();
  }
  get ready() { return this.state !== null && this.client.transport.isConnected; }
  onState(state) {
    if (!state) return;
    this.state = state;
    // What the server sent this screen (the store, not getState(), which filters once more) may
    // show no other seat's secrets before the game is over.
    const { G } = this.client.store.getState();
    const others = (record) => Object.keys(record).some((id) => id !== this.playerID);
    if (!state.ctx.gameover && (others(G.roles) || others(G.votes) || others(G.cards))) {
      this.match.run.figures.error('a secret of another seat reached this screen');
    }
    if (state._stateID > this.stateID) {
      this.stateID = state._stateID;
      this.match.caughtUp(now());
    }
  }
  // The move this seat's own view offers, or null.
  canMove() {
    const s = this.state;
    if (!s || s.ctx.gameover || this.playerID === undefined) return false;
    const { ctx } = s;
    if (ctx.phase === 'propose') return ctx.activePlayers === null && ctx.currentPlayer === this.playerID;
    if (ctx.phase === 'vote' || ctx.phase === 'mission') return !!ctx.activePlayers && this.playerID in ctx.activePlayers;
    return false;
  }
  async move(r) {
    const { G, ctx } = this.state;
    const from = this.stateID;
    const figures = this.match.run.figures;
    let send;
    if (ctx.phase === 'propose') {
      const team = r.sample(ctx.playOrder, TEAM_SIZES[ctx.numPlayers][G.mission]);
      send = () => this.client.moves.proposeTeam(team);
    } else if (ctx.phase === 'vote') {
      const approve = r() < 0.5;
      send = () => this.client.moves.vote(approve);
    } else {
      const card = G.roles[this.playerID] === 'traitor' ? r.choice(['success', 'sabotage']) : 'success';
      send = () => this.client.moves.playCard(card);
    }
    const t0 = now();
    send();
    while (this.stateID <= from) {
      if (now() - t0 > ANSWER_WITHIN || this.match.run.closing) {
        figures.error('move not answered within 10 s');
        return;
      }
      await this.match.changed();
    }
    const t1 = now();
    if (figures.inWindow(t1)) {
      figures.moves += 1;
      figures.answer.push(t1 - t0);
    }
    this.match.pending.push({ stateID: this.stateID, mover: this, t0, counted: figures.inWindow(t1) });
    this.match.caughtUp(now());
  }
}

class Match {
  constructor(run, index, players, r) {
    this.run = run;
    this.index = index;
    this.players = players;
    this.r = r;
    this.pending = [];
    this.waiters = [];
    this.phones = [];
    this.board = null;
  }
  async create() {
    const { matchID } = await lobby(this.run.opts.url, '/create', { numPlayers: this.players });
    this.matchID = matchID;
    const seats = await pooled(
      Array.from({ length: this.players }, (_, i) => () =>
        lobby(this.run.opts.url, `/${matchID}/join`, { playerID: String(i), playerName: `lt-${this.index}-${i}` })),
      4,
    );
    this.phones = seats.map((seat, i) => new Screen(this, String(i), seat.playerCredentials));
    this.board = new Screen(this, undefined, undefined);
  }
  get screens() { return [...this.phones, this.board]; }
  // Resolves at the next state any screen of this match receives (or after 100 ms).
  changed() {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 100);
      this.waiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }
  caughtUp(t) {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
    const figures = this.run.figures;
    this.pending = this.pending.filter((p) => {
      if (this.screens.every((s) => s === p.mover || s.stateID >= p.stateID)) {
        if (p.counted) figures.tapToAll.push(t - p.t0);
        return false;
      }
      if (t - p.t0 > CAUGHT_UP_WITHIN) {
        figures.error('screens not caught up within 10 s');
        return false;
      }
      return true;
    });
  }
  async deal() {
    // Between games: a new match in the lobby, new clients; the old ones close.
    const old = this.screens;
    await this.create();
    await this.run.connect(this.screens);
    old.forEach((s) => s.stop());
    this.run.figures.deals += 1;
  }
  async drive(until) {
    const think = this.run.opts.think * 1000;
    let tick = now() + this.r.uniform(0, think);
    for (;;) {
      await sleep(tick - now());
      const t = now();
      if (t >= until || this.run.closing) return;
      this.caughtUp(t);
      tick = Math.max(tick + think * this.r.uniform(0.5, 1.5), t);
      const movers = this.phones.filter((p) => p.canMove());
      if (movers.length) {
        const newest = Math.max(...this.screens.map((s) => s.stateID));
        const current = movers.filter((p) => p.stateID >= newest);
        await this.r.choice(current.length ? current : movers).move(this.r);
      } else if (this.board.state && this.board.state.ctx.gameover) {
        await this.deal();
      } // else: answers on their way
    }
  }
}

class Run {
  constructor(opts) {
    this.opts = opts;
    this.figures = new Figures();
    this.closing = false;
    const r = rng(opts.seed);
    this.matches = Array.from({ length: opts.matches }, (_, i) =>
      new Match(this, i, PHONES[i % PHONES.length], rng(Math.floor(r() * 2 ** 32))));
  }
  async connect(screens) {
    // At most 16 sockets connecting at once; then every screen must hold its first state.
    await pooled(screens.map((s) => async () => {
      s.start();
      const t0 = now();
      while (!s.ready) {
        if (now() - t0 > 30_000) throw new Error('a client did not sync within 30 s');
        await sleep(20);
      }
    }), 16);
  }
  async execute() {
    const { opts, figures } = this;
    const t0 = now();
    await pooled(this.matches.map((m) => () => m.create()), 8);
    const setup = now() - t0;
    await this.connect(this.matches.flatMap((m) => m.screens));
    const connected = now() - t0 - setup;
    const start = now();
    figures.from = start + opts.warmup * 1000;
    figures.to = figures.from + opts.duration * 1000;
    const drivers = Promise.all(this.matches.map((m) => m.drive(figures.to)));

    await sleep(figures.from - now());
    const cpu0 = serverCpuSeconds(opts.pid);
    const own0 = ownCpuSeconds();
    const wall0 = now();
    await sleep(figures.to - now());
    const cpu1 = serverCpuSeconds(opts.pid);
    const own1 = ownCpuSeconds();
    const wall = (now() - wall0) / 1000;
    const rss = serverRssMb(opts.pid);
    await drivers;
    const drainUntil = now() + DRAIN;
    while (this.matches.some((m) => m.pending.length) && now() < drainUntil) {
      this.matches.forEach((m) => m.caughtUp(now()));
      await sleep(50);
    }
    for (const m of this.matches) {
      if (m.pending.length) figures.error('screens not caught up by the end of the run');
    }
    this.closing = true;
    this.matches.forEach((m) => m.screens.forEach((s) => s.stop()));

    const cpu = cpu1 - cpu0;
    return {
      tool: 'boardgame.io',
      matches: opts.matches,
      players: this.matches.reduce((n, m) => n + m.players, 0),
      sockets: this.matches.reduce((n, m) => n + m.players + 1, 0),
      warmup_s: opts.warmup,
      duration_s: Math.round(wall * 100) / 100,
      think_s: opts.think,
      moves: figures.moves,
      moves_per_s: Math.round((figures.moves / wall) * 100) / 100,
      server_cpu_pct: Math.round((1000 * cpu) / wall) / 10,
      server_cpu_ms_per_move: figures.moves ? Math.round((10000 * cpu) / figures.moves) / 10 : null,
      server_rss_mb: rss,
      driver_cpu_pct: Math.round((1000 * (own1 - own0)) / wall) / 10,
      answer_ms_p50: percentile(figures.answer, 0.5),
      answer_ms_p95: percentile(figures.answer, 0.95),
      tap_to_all_ms_p50: percentile(figures.tapToAll, 0.5),
      tap_to_all_ms_p95: percentile(figures.tapToAll, 0.95),
      deals: figures.deals,
      errors: figures.errors,
      setup_s: Math.round(setup) / 1000,
      connect_s: Math.round(connected) / 1000,
      clk_tck: CLK_TCK,
      server_pid: opts.pid,
    };
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  // A hard deadline: setup and connecting get 180 s, then the window, the drain and 30 s more.
  const deadline = setTimeout(() => {
    console.error('driver: hard deadline reached, exiting');
    process.exit(3);
  }, (180 + opts.warmup + opts.duration + DRAIN / 1000 + 30) * 1000);
  deadline.unref();
  const result = await new Run(opts).execute();
  console.log(JSON.stringify(result));
  process.exit(0);
}

main().catch((error) => {
  console.error(`driver: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
