"""The Inside Job engine: setup, legal actions and how each action changes the state."""

from __future__ import annotations

from itertools import combinations

from engines.base import N_, BaseEngine, IllegalAction, OptionError, State, state_rng
from engines.inside_job import tables
from engines.inside_job.views import build_view

TRAITOR_SPECIALS = ("merlin", "morgana", "mordred", "oberon")  # merlin brings the Assassin


def copy_state(state: State) -> State:
    """A copy safe to change: every top-level list and dict is new.

    Deeper objects (log entries, past teams) are shared because the engine never changes
    them in place once written; it only replaces or appends at the top level.
    """
    return {key: (list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict)
                  else value) for key, value in state.items()}


class InsideJob(BaseEngine):
    """Five missions, hidden Traitors, public votes and anonymous Sabotage counts."""

    name = "inside_job"
    team_key = "side"
    title = N_("Inside Job")
    min_players = 5
    max_players = 10

    # ----- options -----------------------------------------------------------------
    def option_specs(self) -> list[dict]:
        """First leader, Merlin with the Assassin, and the optional Avalon roles."""
        return [
            {"key": "first_player", "kind": "seat", "default": None, "label": N_("First leader"),
             "help": N_("Empty: the first leader is drawn at random.")},
            {"key": "merlin", "kind": "bool", "default": False, "label": N_("Merlin and the Assassin"),
             "help": N_("Merlin (an Agent) sees the Traitors; the Assassin may still win by naming Merlin.")},
            {"key": "percival", "kind": "bool", "default": False, "label": N_("Percival"),
             "help": N_("An Agent who sees Merlin (and Morgana) as Merlin candidates. Needs Merlin.")},
            {"key": "morgana", "kind": "bool", "default": False, "label": N_("Morgana"),
             "help": N_("A Traitor who looks like Merlin to Percival. Needs Percival.")},
            {"key": "mordred", "kind": "bool", "default": False, "label": N_("Mordred"),
             "help": N_("A Traitor hidden from Merlin.")},
            {"key": "oberon", "kind": "bool", "default": False, "label": N_("Oberon"),
             "help": N_("A Traitor unknown to the other Traitors, and blind to them.")},
            {"key": "lady_of_the_lake", "kind": "bool", "default": False, "label": N_("Lady of the Lake"),
             "help": N_("7+ players: after missions 2, 3 and 4 the holder learns one player's side.")},
        ]

    def check_options(self, options: dict, players: int | None) -> None:
        """Percival needs Merlin, Morgana needs Percival; specials must fit the Traitor count."""
        if options["percival"] and not options["merlin"]:
            raise OptionError("Percival needs Merlin: turn Merlin on or Percival off.")
        if options["morgana"] and not options["percival"]:
            raise OptionError("Morgana needs Percival: turn Percival on or Morgana off.")
        if players is None or players not in tables.SIDES:
            return
        specials = sum(1 for key in TRAITOR_SPECIALS if options[key])
        traitors = tables.SIDES[players][1]
        if specials > traitors:
            raise OptionError(
                f"{players} players have only {traitors} Traitors, too few for {specials} special "
                "Traitor roles (the Assassin comes with Merlin)."
            )
        if options["lady_of_the_lake"] and players < tables.LADY_MIN_PLAYERS:
            raise OptionError("The Lady of the Lake needs at least 7 players.")

    # ----- setup -------------------------------------------------------------------
    def setup(self, players: int, options: dict, seed: int) -> State:
        """Deal the roles and pick the first leader (and the Lady's first holder)."""
        self.check_players(players)
        options = self.validate_options(options, players)
        rng = state_rng({"seed": seed, "draws": 0})
        roles = rng.shuffle(tables.role_list(players, options))
        leader = options["first_player"]
        if leader is None:
            leader = rng.randbelow(players)
        # Decision: "to the right of the first leader" = the seat before it, since leadership
        # passes clockwise to the next seat.
        lady = (leader - 1) % players if options["lady_of_the_lake"] else None
        state: State = {
            "seed": seed,
            "draws": rng.counter,
            "players": players,
            "options": options,
            "roles": roles,
            "phase": "propose",
            "mission": 0,
            "missions": [],
            "sabotage_counts": [],
            "mission_teams": [],
            "leader": leader,
            "team": None,
            "rejections": 0,
            "votes": [None] * players,
            "last_votes": None,
            "cards": [None] * players,
            "lady": lady,
            "lady_past": [lady] if lady is not None else [],
            "window_no": 0,
            "assassin_target": None,
            "result": None,
            "log": [{"event": "start", "leader": leader, "lady": lady}],
        }
        return state

    # ----- queries -----------------------------------------------------------------
    def legal_actions(self, state: State, seat: int) -> list[dict]:
        """Every concrete action this seat may take now ([] when it has nothing to do)."""
        phase = state["phase"]
        if not isinstance(seat, int) or not 0 <= seat < state["players"]:
            return []
        if phase == "propose" and seat == state["leader"]:
            size = tables.MISSION_SIZES[state["players"]][state["mission"]]
            return [{"type": "propose", "team": list(team)}
                    for team in combinations(range(state["players"]), size)]
        if phase == "vote" and state["votes"][seat] is None:
            return [{"type": "vote", "approve": True}, {"type": "vote", "approve": False}]
        if phase == "mission" and seat in state["team"] and state["cards"][seat] is None:
            if tables.side_of(state["roles"][seat]) == "traitors":
                return [{"type": "play", "card": "success"}, {"type": "play", "card": "sabotage"}]
            return [{"type": "play", "card": "success"}]
        if phase == "lady" and seat == state["lady"]:
            return [{"type": "examine", "target": s} for s in range(state["players"])
                    if s != seat and s not in state["lady_past"]]
        if phase == "assassinate" and state["roles"][seat] == "assassin":
            _, known = tables.knowledge(state["roles"], seat)
            # The Assassin may name anyone but himself and the Traitors he knows.
            return [{"type": "assassinate", "target": s} for s in range(state["players"])
                    if s != seat and s not in known]
        return []

    def awaiting(self, state: State) -> set[int]:
        """The seats whose answer the game waits for."""
        phase = state["phase"]
        if phase == "propose":
            return {state["leader"]}
        if phase == "vote":
            return {s for s, v in enumerate(state["votes"]) if v is None}
        if phase == "mission":
            return {s for s in state["team"] if state["cards"][s] is None}
        if phase == "lady":
            return {state["lady"]}
        if phase == "assassinate":
            return {state["roles"].index("assassin")}
        return set()

    def window(self, state: State) -> str | None:
        """The timed window: the vote and the mission play; None otherwise."""
        if state["phase"] in ("vote", "mission"):
            return f"{state['window_no']}:{state['phase']}"
        return None

    def on_timeout(self, state: State) -> State:
        """Unvoted seats approve; unplayed cards are Success (the app never sabotages for anyone)."""
        if self.window(state) is None or self.outcome(state) is not None:
            raise IllegalAction("no response window is open")
        new = copy_state(state)
        late = sorted(self.awaiting(new))
        new["log"].append({"event": "timeout", "phase": new["phase"], "seats": late})
        if new["phase"] == "vote":
            for s in late:
                new["votes"][s] = True
            self._resolve_vote(new)
        else:
            for s in late:
                new["cards"][s] = "success"
            self._resolve_mission(new)
        return new

    def outcome(self, state: State) -> dict | None:
        """Winners, reason, both teams and every role once the game is over."""
        result = state["result"]
        if result is None:
            return None
        roles = state["roles"]
        teams = {
            "agents": [s for s, r in enumerate(roles) if tables.side_of(r) == "agents"],
            "traitors": [s for s, r in enumerate(roles) if tables.side_of(r) == "traitors"],
        }
        return {
            "winners": teams[result["side"]],
            "side": result["side"],
            "reason": result["reason"],
            "teams": teams,
            "reveal": {"roles": list(roles), "assassin_target": state["assassin_target"]},
        }

    def view(self, state: State, seat: int | None) -> dict:
        """What this seat (or the board, None) may see."""
        legal = [] if seat is None else self.legal_actions(state, seat)
        return build_view(state, seat, legal, sorted(self.awaiting(state)), self.outcome(state))

    # ----- transitions -------------------------------------------------------------
    def copy_state(self, state):
        """A copy for ``_apply``: see copy_state for what is shared (entries never changed once written)."""
        return copy_state(state)

    def _apply(self, state: State, seat: int, action: dict) -> None:
        """Dispatch one legal action."""
        kind = action["type"]
        if kind == "propose":
            state["team"] = [int(s) for s in action["team"]]
            state["phase"] = "vote"
            state["votes"] = [None] * state["players"]
            state["window_no"] += 1
            state["log"].append({"event": "proposal", "leader": seat, "team": list(state["team"]),
                                 "mission": state["mission"] + 1, "attempt": state["rejections"] + 1})
        elif kind == "vote":
            state["votes"][seat] = bool(action["approve"])
            if all(v is not None for v in state["votes"]):
                self._resolve_vote(state)
        elif kind == "play":
            state["cards"][seat] = action["card"]
            if all(state["cards"][s] is not None for s in state["team"]):
                self._resolve_mission(state)
        elif kind == "examine":
            self._examine(state, seat, action["target"])
        elif kind == "assassinate":
            self._assassinate(state, seat, action["target"])

    def _resolve_vote(self, state: State) -> None:
        """Reveal the votes; a strict majority sends the team, otherwise the next leader proposes."""
        votes = list(state["votes"])
        approvals = sum(1 for v in votes if v)
        approved = approvals * 2 > state["players"]  # a tie rejects
        state["last_votes"] = votes
        tally = {"approve": [s for s, v in enumerate(votes) if v],
                 "reject": [s for s, v in enumerate(votes) if not v]}
        if approved:
            state["log"].append({"event": "votes", "votes": votes, "approved": True, **tally,
                                 "team": state["team"], "rejections": state["rejections"]})
            state["phase"] = "mission"
            state["cards"] = [None] * state["players"]
            state["window_no"] += 1
            return
        state["rejections"] += 1
        state["log"].append({"event": "votes", "votes": votes, "approved": False, **tally,
                             "team": state["team"], "rejections": state["rejections"]})
        if state["rejections"] >= tables.MAX_REJECTIONS:
            # Seed rule: the fifth rejection hands this mission to the Traitors as a failure.
            state["log"].append({"event": "auto_fail", "mission": state["mission"] + 1})
            self._finish_mission(state, "fail", None, None)
            return
        state["team"] = None
        state["leader"] = (state["leader"] + 1) % state["players"]
        state["phase"] = "propose"

    def _resolve_mission(self, state: State) -> None:
        """Count the Sabotage cards (only the count is ever public) and score the mission."""
        team = list(state["team"])
        sabotage = sum(1 for s in team if state["cards"][s] == "sabotage")
        needed = tables.sabotage_needed(state["players"], state["mission"])
        result = "fail" if sabotage >= needed else "success"
        state["log"].append({"event": "mission", "mission": state["mission"] + 1, "team": team,
                             "sabotage": sabotage, "needed": needed, "result": result})
        self._finish_mission(state, result, sabotage, team)

    def _finish_mission(self, state: State, result: str, sabotage: int | None, team) -> None:
        """Record a mission, then end the game, call the Lady, or pass leadership on."""
        index = state["mission"]
        state["missions"].append(result)
        state["sabotage_counts"].append(sabotage)
        state["mission_teams"].append(team)
        state["cards"] = [None] * state["players"]
        state["votes"] = [None] * state["players"]
        state["team"] = None
        state["rejections"] = 0
        state["mission"] = index + 1
        state["leader"] = (state["leader"] + 1) % state["players"]
        if state["missions"].count("fail") >= tables.WINS_NEEDED:
            self._end(state, "traitors", "missions_failed")
        elif state["missions"].count("success") >= tables.WINS_NEEDED:
            if state["options"]["merlin"]:
                state["phase"] = "assassinate"
                state["log"].append({"event": "assassination"})
            else:
                self._end(state, "agents", "missions_succeeded")
        elif state["lady"] is not None and index in tables.LADY_AFTER:
            # Decision: the Lady is used after missions 2-4 however they ended (even by rejections).
            state["phase"] = "lady"
        else:
            state["phase"] = "propose"

    def _examine(self, state: State, seat: int, target: int) -> None:
        """The holder privately learns the target's side; the token passes to the target."""
        side = tables.side_of(state["roles"][target])
        state["log"].append({"event": "lady", "holder": seat, "target": target})
        state["log"].append({"event": "lady_result", "private": True, "to": seat,
                             "target": target, "side": side})
        state["lady"] = target
        state["lady_past"].append(target)
        state["phase"] = "propose"

    def _assassinate(self, state: State, seat: int, target: int) -> None:
        """Naming Merlin steals the win; any other name leaves it with the Agents."""
        hit = state["roles"][target] == "merlin"
        state["assassin_target"] = target
        state["log"].append({"event": "assassinate", "assassin": seat, "target": target, "hit": hit})
        if hit:
            self._end(state, "traitors", "merlin_found")
        else:
            self._end(state, "agents", "merlin_survived")

    def _end(self, state: State, side: str, reason: str) -> None:
        """Close the game with the winning side."""
        state["phase"] = "over"
        state["result"] = {"side": side, "reason": reason}
        state["log"].append({"event": "game_over", "side": side, "reason": reason})
