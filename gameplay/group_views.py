"""Group pages (members only: anyone else gets 404), invite links, a player's stats, the ratings page.

Figures come from finished games' outcomes (``gameplay.stats``, ``gameplay.ratings``), never a
running game's state. A group's pages answer 404 to non-members, so nobody learns a group exists.
"""

from __future__ import annotations

import csv
import io
import json

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engines.registry import ENGINES
from gameplay.charts import bar_chart, line_chart
from gameplay.ratings import MIN_GAMES, leaderboard, rate_games
from gameplay.stats import (
    GameRecord,
    export_rows,
    game_nights,
    group_records,
    head_to_head,
    player_records,
    player_stats,
    stats_context,
)
from lobby import groups
from lobby.models import Group, Membership, Player
from lobby.network import lan_base_url
from lobby.services import LobbyError


def _member_group(request: HttpRequest, group_id: int) -> Group:
    """The group if this browser's player is a member; 404 for anyone else (and for no such group)."""
    group = groups.group_of_member(group_id=group_id, player=request.player)
    if group is None:
        raise Http404("no such group")
    return group


def _counted(group: Group) -> dict[int, Player]:
    """The members whose games count (accounts; a guest member counts once they sign up), by player id."""
    members = Player.objects.filter(memberships__group=group, user__isnull=False)
    return {p.pk: p for p in members}


def _title(engine: str) -> str:
    return _(ENGINES[engine].title) if engine in ENGINES else engine


@require_http_methods(["GET", "POST"])
def groups_index(request: HttpRequest) -> HttpResponse:
    """The player's groups, and (for an account) a form to create one."""
    player = request.player
    status = 200
    if request.method == "POST":
        try:
            group = groups.group_create(player=player, name=request.POST.get("name", ""))
            return redirect("group_detail", group_id=group.pk)
        except LobbyError as error:
            messages.error(request, str(error))
            status = 400
    return render(request, "groups/index.html", {
        "groups": groups.player_groups(player),
        "may_create": bool(player) and player.user_id is not None,
    }, status=status)


def _leaderboards(records: list[GameRecord], counted: dict[int, Player]) -> list[dict]:
    """One leaderboard per game system played for the group: ranked members, then the not yet ranked."""
    boards = []
    for engine, table in sorted(rate_games(records, set(counted)).items()):
        ranked, unranked = leaderboard(table)
        boards.append({
            "engine": engine, "title": _title(engine),
            "ranked": [{"player": counted[p.player_id], "rating": round(p.ordinal, 1), "mu": round(p.mu, 1),
                        "sigma": round(p.sigma, 1), "games": p.games} for p in ranked],
            "unranked": [{"player": counted[p.player_id], "games": p.games} for p in unranked],
        })
    return boards


@require_GET
def group_detail(request: HttpRequest, group_id: int) -> HttpResponse:
    """A group: members with their figures, leaderboards per game, the invite link, recent games."""
    group = _member_group(request, group_id)
    records = group_records(group)
    counted = _counted(group)
    members = []
    for membership in group.memberships.select_related("player"):
        player = membership.player
        stats = player_stats(records, player.pk) if player.pk in counted else None
        members.append({"player": player, "guest": player.pk not in counted, "stats": stats})
    recent = [{"title": _title(r.engine), "finished": r.finished, "names": list(r.names),
               "winners": [r.names[s] for s in sorted(r.winners)]} for r in reversed(records[-10:])]
    nights = [{"key": n.key, "started": n.started, "games": len(n.games)} for n in reversed(game_nights(records)[-5:])]
    return render(request, "groups/detail.html", {
        "group": group,
        "nights": nights,
        "members": members,
        "boards": _leaderboards(records, counted),
        "min_games": MIN_GAMES,
        "games": len(records),
        "recent": recent,
        "is_maker": group.created_by_id == request.player.pk,
        "invite_url": lan_base_url(request) + reverse("group_join", args=[group.invite_token]),
    })


def _titled(stats: dict) -> dict:
    """The figures with each game's translated title on its rows (by game, by role)."""
    for key in ("by_game", "by_role"):
        stats[key] = [dict(row, title=_title(row["engine"])) for row in stats[key]]
    return stats


@require_GET
def group_player(request: HttpRequest, group_id: int, player_id: int) -> HttpResponse:
    """One member's figures in the group: by game, role, seat and table size; streaks; rating charts; head-to-head."""
    group = _member_group(request, group_id)
    counted = _counted(group)
    player = counted.get(player_id)
    if player is None:
        raise Http404("not a counted member")
    records = group_records(group)
    stats = _titled(stats_context(player_stats(records, player.pk)))
    ratings = []
    for engine, table in sorted(rate_games(records, set(counted)).items()):
        mine = table.get(player.pk)
        if mine is None:
            continue
        ratings.append({"engine": engine, "title": _title(engine), "rating": round(mine.ordinal, 1),
                        "games": mine.games, "ranked": mine.ranked,
                        "chart": line_chart([0.0] + [value for _id, _when, value in mine.history])})
    rivals = []
    for other in counted.values():
        if other.pk == player.pk:
            continue
        h2h = head_to_head(records, player.pk, other.pk)
        if h2h.games:
            rivals.append({"player": other, "h2h": h2h})
    return render(request, "stats/player.html", {
        "group": group, "subject": player, "stats": stats, "ratings": ratings, "rivals": rivals,
        "role_chart": bar_chart(stats["by_role"]), "min_games": MIN_GAMES,
    })


@require_GET
def my_stats(request: HttpRequest) -> HttpResponse:
    """This player's figures over every finished game they played, in any group or none."""
    player = request.player
    if not player:
        return redirect(f"{reverse('login')}?next={reverse('my_stats')}")
    stats = _titled(stats_context(player_stats(player_records(player), player.pk)))
    return render(request, "stats/player.html", {
        "group": None, "subject": player, "stats": stats, "ratings": [], "rivals": [],
        "role_chart": bar_chart(stats["by_role"]), "min_games": MIN_GAMES,
        "groups": groups.player_groups(player), "guest": player.user_id is None,
    })


@require_GET
def ratings_about(request: HttpRequest) -> HttpResponse:
    """How ratings are computed, and why this method."""
    return render(request, "stats/about.html", {"min_games": MIN_GAMES})


@require_http_methods(["GET", "POST"])
def group_join(request: HttpRequest, token: str) -> HttpResponse:
    """An invite link: shows the group's name and a Join button; a guest may join (counted once signed up)."""
    group = groups.group_by_token(token)
    if group is None:
        raise Http404("no such invite")
    player = request.player
    if player and Membership.objects.filter(group=group, player=player).exists():
        return redirect("group_detail", group_id=group.pk)
    if request.method == "POST":
        try:
            groups.group_join(group=group, player=player)
        except LobbyError as error:
            messages.error(request, str(error))
            return redirect("group_join", token=group.invite_token)
        return redirect("group_detail", group_id=group.pk)
    return render(request, "groups/join.html", {"group": group, "here": request.get_full_path()})


@require_POST
def group_invite_renew(request: HttpRequest, group_id: int) -> HttpResponse:
    """The maker makes a new invite link (the old one stops working)."""
    group = _member_group(request, group_id)
    try:
        groups.group_invite_renew(group=group, player=request.player)
        messages.success(request, _("A new invite link is ready; the old one no longer works."))
    except LobbyError as error:
        messages.error(request, str(error))
    return redirect("group_detail", group_id=group.pk)


@require_POST
def group_leave(request: HttpRequest, group_id: int) -> HttpResponse:
    """A member leaves the group (its games stay in the group's history)."""
    group = _member_group(request, group_id)
    try:
        groups.group_leave(group=group, player=request.player)
    except LobbyError as error:
        messages.error(request, str(error))
        return redirect("group_detail", group_id=group.pk)
    return redirect("groups")


@require_POST
def group_fair_deals(request: HttpRequest, group_id: int) -> HttpResponse:
    """The maker turns fair deals on (``on=1``) or off (``on=0``) for the group's next games."""
    group = _member_group(request, group_id)
    raw = request.POST.get("on", "")
    try:
        if raw not in ("0", "1"):
            raise LobbyError(_("Choose on or off."))
        groups.group_fair_deals_set(group=group, player=request.player, on=raw == "1")
    except LobbyError as error:
        messages.error(request, str(error))
    return redirect("group_detail", group_id=group.pk)


EXPORT_FIELDS = ["game", "engine", "finished", "players", "seat", "won", "team", "role", "names"]


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula (a name may start with = + - @)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@require_GET
def my_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """This player's finished games as a file: ``json`` or ``csv`` (one row a game; names joined by ``;`` in CSV)."""
    player = request.player
    if not player:
        return redirect(f"{reverse('login')}?next={reverse('my_stats')}")
    rows = export_rows(player_records(player), player.pk)
    if fmt == "json":
        response = HttpResponse(json.dumps(rows, ensure_ascii=False, indent=1), content_type="application/json")
    elif fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "names": _cell("; ".join(row["names"]))})
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    else:
        raise Http404("no such format")
    response["Content-Disposition"] = f'attachment; filename="my-games.{fmt}"'
    return response


@require_GET
def group_night(request: HttpRequest, group_id: int, night: int) -> HttpResponse:
    """One game night's summary: its games, wins per player, wins per team (``night``: its first game's id)."""
    group = _member_group(request, group_id)
    counted = _counted(group)
    found = next((n for n in game_nights(group_records(group)) if n.key == night), None)
    if found is None:
        raise Http404("no such night")
    return render(request, "groups/night.html", {
        "group": group, "started": found.started, "ended": found.games[-1].finished,
        "scoreboard": [{"player": counted[pid], "tally": tally} for pid, tally in found.scoreboard(set(counted))],
        "teams": [{"engine": engine, "title": _title(engine), "team": team, "wins": wins}
                  for (engine, team), wins in sorted(found.teams().items())],
        "games": [{"title": _title(r.engine), "finished": r.finished,
                   "winners": [r.names[s] for s in sorted(r.winners)]} for r in found.games],
    })
