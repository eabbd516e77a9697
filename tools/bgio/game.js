'use strict';
// A small secret-role game in the spirit of Inside Job, for boardgame.io (issue 25's comparison).
//
// 5–7 players. Setup deals each a secret role, "agent" or "traitor" (2, 2, 3 traitors), with the
// game's random API. A round: the leader proposes a team of the mission's size (phase "propose");
// everyone votes approve/reject at once (phase "vote": every player in stage "voting", one vote
// each); a majority of approvals sends the team on the mission, otherwise the lead passes on (the
// fifth rejection in a row: traitors win). On the mission (phase "mission") each team member plays
// a card, "success" or "sabotage" (an agent can only play success); one sabotage fails it (two on
// the fourth mission with 7 players). Three successful missions: agents win; three failed ones:
// traitors win. The lead passes on after every mission.
//
// Secrets: G.roles, G.votes (until all are in) and G.cards (until all are in) hold everyone's;
// playerView leaves a player only their own, and a spectator (no playerID) none of them. Votes and
// cards are redacted from the log sent to others. Once a vote is complete its tally (who approved)
// is public, as at a real table; a mission shows only how many sabotages it had.

const { INVALID_MOVE } = require('boardgame.io/core');

const TEAM_SIZES = { 5: [2, 3, 2, 3, 3], 6: [2, 3, 4, 3, 4], 7: [2, 3, 3, 4, 4] };
const TRAITORS = { 5: 2, 6: 2, 7: 3 };
const MAX_REJECTIONS = 5;

const teamSize = (G, ctx) => TEAM_SIZES[ctx.numPlayers][G.mission];
const sabotagesToFail = (G, ctx) => (ctx.numPlayers >= 7 && G.mission === 3 ? 2 : 1);
const leaderPos = ({ G, ctx }) => ctx.playOrder.indexOf(G.leader);
const nextLeader = (G, ctx) => ctx.playOrder[(ctx.playOrder.indexOf(G.leader) + 1) % ctx.numPlayers];

function proposeTeam({ G, ctx, playerID, events }, team) {
  if (playerID !== G.leader || !Array.isArray(team)) return INVALID_MOVE;
  const unique = new Set(team);
  if (team.length !== teamSize(G, ctx) || unique.size !== team.length) return INVALID_MOVE;
  if (!team.every((id) => typeof id === 'string' && ctx.playOrder.includes(id))) return INVALID_MOVE;
  G.team = [...team];
  events.endPhase();
}

function vote({ G, playerID }, approve) {
  if (typeof approve !== 'boolean' || playerID in G.votes) return INVALID_MOVE;
  G.votes[playerID] = approve;
}

function playCard({ G, playerID }, card) {
  if (!G.team.includes(playerID) || playerID in G.cards) return INVALID_MOVE;
  if (card !== 'success' && card !== 'sabotage') return INVALID_MOVE;
  if (card === 'sabotage' && G.roles[playerID] !== 'traitor') return INVALID_MOVE;
  G.cards[playerID] = card;
}

const InsideJobLite = {
  name: 'insidejoblite',
  minPlayers: 5,
  maxPlayers: 7,

  setup: ({ ctx, random }) => {
    const n = ctx.numPlayers;
    if (!TEAM_SIZES[n]) throw new Error(`insidejoblite needs 5–7 players, not ${n}`);
    const deck = random.Shuffle([
      ...Array(TRAITORS[n]).fill('traitor'),
      ...Array(n - TRAITORS[n]).fill('agent'),
    ]);
    const roles = {};
    ctx.playOrder.forEach((id, i) => { roles[id] = deck[i]; });
    return {
      roles,
      leader: ctx.playOrder[random.Die(n) - 1],
      mission: 0, // index of the mission being played (0–4)
      results: [], // per mission: { team, sabotages, success }
      rejections: 0, // rejected proposals in a row
      team: [],
      votes: {}, // hidden while the vote runs
      cards: {}, // hidden while the mission runs
      tallies: [], // completed votes: { team, approvals: [ids], approved }
      winner: null,
    };
  },

  // Every move runs only on the server: the clients hold filtered states.
  moves: {},
  phases: {
    propose: {
      start: true,
      turn: { order: { first: leaderPos, next: leaderPos } },
      moves: { proposeTeam: { move: proposeTeam, client: false } },
      next: 'vote',
    },
    vote: {
      turn: {
        order: { first: leaderPos, next: leaderPos },
        activePlayers: { all: 'voting', minMoves: 1, maxMoves: 1 },
        stages: { voting: { moves: { vote: { move: vote, client: false, redact: true } } } },
      },
      endIf: ({ G, ctx }) => Object.keys(G.votes).length === ctx.numPlayers,
      onEnd: ({ G, ctx }) => {
        const approvals = ctx.playOrder.filter((id) => G.votes[id]);
        const approved = approvals.length * 2 > ctx.numPlayers;
        G.tallies.push({ mission: G.mission, team: G.team, approvals, approved });
        G.votes = {};
        if (approved) {
          G.rejections = 0;
        } else {
          G.rejections += 1;
          G.team = [];
          G.leader = nextLeader(G, ctx);
          if (G.rejections >= MAX_REJECTIONS) G.winner = 'traitors';
        }
      },
      next: ({ G }) => (G.team.length ? 'mission' : 'propose'),
    },
    mission: {
      turn: {
        order: { first: leaderPos, next: leaderPos },
        onBegin: ({ G, events }) => {
          events.setActivePlayers({
            value: Object.fromEntries(G.team.map((id) => [id, 'playing'])),
            minMoves: 1,
            maxMoves: 1,
          });
        },
        stages: { playing: { moves: { playCard: { move: playCard, client: false, redact: true } } } },
      },
      endIf: ({ G }) => G.team.length > 0 && G.team.every((id) => id in G.cards),
      onEnd: ({ G, ctx }) => {
        const sabotages = Object.values(G.cards).filter((c) => c === 'sabotage').length;
        const success = sabotages < sabotagesToFail(G, ctx);
        G.results.push({ team: G.team, sabotages, success });
        G.cards = {};
        G.team = [];
        G.mission += 1;
        G.leader = nextLeader(G, ctx);
        const wins = G.results.filter((r) => r.success).length;
        if (wins >= 3) G.winner = 'agents';
        else if (G.results.length - wins >= 3) G.winner = 'traitors';
      },
      next: 'propose',
    },
  },

  endIf: ({ G }) => (G.winner ? { winner: G.winner, roles: G.roles } : undefined),

  playerView: ({ G, playerID }) => {
    const own = (record) => (playerID != null && playerID in record ? { [playerID]: record[playerID] } : {});
    return {
      ...G,
      roles: G.winner ? G.roles : own(G.roles),
      votes: own(G.votes),
      voted: Object.keys(G.votes), // who has voted, not how
      cards: own(G.cards),
      played: Object.keys(G.cards),
    };
  },
};

module.exports = { InsideJobLite, TEAM_SIZES, TRAITORS };
