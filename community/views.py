"""Group pages (members only: anyone else gets 404), invite links, a player's stats, the ratings page,
the player's downloads, the host's game-night controls and the deletion of their account.

Figures come from finished games' outcomes and logs (``community.stats``, ``community.ratings``), never
a running game's state. A group's pages answer 404 to non-members, so nobody learns a group exists.
Secret figures (``stats.PRIVATE_FIGURES``) appear only on the player's own page and download.

The deletion of an account is here, not with the lobby's account page (``lobby.account``), because it
also erases the names on the player's game seats and refuses while they sit in a running game
(``gameplay.models``, ``gameplay.services.forget_ender``): the lobby never imports gameplay.
"""

from __future__ import annotations

import csv
import io
import json

from django.contrib import messages
from django.contrib.auth import logout
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from community import nights
from community.charts import bar_chart, line_chart
from community.ratings import MIN_GAMES, leaderboard, rate_games
from community.stats import (
    FIGURES,
    export_rows,
    group_records,
    head_to_head,
    player_records,
    player_stats,
    public_figures,
    stats_context,
)
from engines.registry import ENGINES
from gameplay import services
from gameplay.models import Game, GameSeat
from gameplay.records import GameRecord
from infra import limits
from lobby import account, groups
from lobby.models import Group, Membership, Player
from lobby.network import lan_base_url
from lobby.services import LobbyError
from lobby.views import back_to, host_table


def _member_group(request: HttpRequest, group_id: int) -> Group:
    """The group if this browser's player is a member; 404 for anyone else (and for no such group)."""
    group = groups.group_of_member(group_id=group_id, player=request.player)
    if group is None:
        raise Http404("no such group")
    return group


def _counted(group: Group) -> dict[int, Player]:
    """The members whose games count (accounts; a guest member counts once they sign up), by player id."""
    members = Player.objects.filter(memberships__group=group, user__isnull=False, deleted=False)
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
    records = group_records(group, figures=True)
    counted = _counted(group)
    members = []
    for membership in group.memberships.select_related("player"):
        player = membership.player
        stats = player_stats(records, player.pk) if player.pk in counted else None
        members.append({"player": player, "guest": player.pk not in counted, "stats": stats,
                        "figures": public_figures(stats.figures) if stats else {}})
    played = {r.engine for r in records}
    recent = [{"title": _title(r.engine), "finished": r.finished, "names": list(r.names),
               "winners": [r.names[s] for s in sorted(r.winners)]} for r in reversed(records[-10:])]
    # The group's latest nights, each counted as its page lists it (community.nights.night_games).
    latest = [{"key": n.pk, "started": n.started, "games": nights.night_games(n).count()}
              for n in nights.group_nights(group)[:5]]
    return render(request, "groups/detail.html", {
        "group": group,
        "nights": latest,
        "members": members,
        "boards": _leaderboards(records, counted),
        "min_games": MIN_GAMES,
        "games": len(records),
        "figure_members": [m for m in members if m["figures"]],
        # The games played here whose logs give figures: a column group each (games/<engine>/figures.html).
        "figure_games": sorted(name for name in played if name in FIGURES),
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
    records = group_records(group, figures=True)
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
        "group": group, "subject": player, "subject_name": account.shown_player_name(player),
        "stats": stats, "ratings": ratings, "rivals": rivals,
        "role_chart": bar_chart(stats["by_role"]), "min_games": MIN_GAMES,
    })


@require_GET
def my_stats(request: HttpRequest) -> HttpResponse:
    """This player's figures over every finished game they played, in any group or none."""
    player = request.player
    if not player:
        return redirect(f"{reverse('login')}?next={reverse('my_stats')}")
    # Their own page: their secret figures (the Sabotage cards they played) show too.
    stats = _titled(stats_context(player_stats(player_records(player, figures=True), player.pk), private=True))
    return render(request, "stats/player.html", {
        "group": None, "subject": player, "subject_name": account.shown_player_name(player),
        "stats": stats, "ratings": [], "rivals": [],
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
# The log's figures as CSV columns after those, by game name (empty where the game has no such figure).
EXPORT_FIGURES = [figure for name in sorted(FIGURES) for figure in FIGURES[name]]


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula (a name may start with = + - @)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@require_GET
def my_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """This player's finished games as a file: ``json`` or ``csv`` (one row a game; names joined by ``;`` in CSV)."""
    player = request.player
    if not player:
        return redirect(f"{reverse('login')}?next={reverse('my_stats')}")
    rows = export_rows(player_records(player, figures=True), player.pk)
    if fmt == "json":
        response = HttpResponse(json.dumps(rows, ensure_ascii=False, indent=1), content_type="application/json")
    elif fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[*EXPORT_FIELDS, *EXPORT_FIGURES])
        writer.writeheader()
        for row in rows:
            figures = row.pop("figures")
            writer.writerow({**row, **figures, "names": _cell("; ".join(row["names"]))})
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    else:
        raise Http404("no such format")
    response["Content-Disposition"] = f'attachment; filename="my-games.{fmt}"'
    return response


@require_POST
def host_night_start(request: HttpRequest, code: str) -> HttpResponse:
    """The host opens a game night: the table's games from now on make one series (``community.nights``).
    Back to the page the control was used on (the table page, or the moderator's board: ``back=board``)."""
    table = host_table(request, code)
    try:
        nights.night_start(table=table)
    except nights.NightError as error:
        messages.error(request, str(error))
        return back_to(request, table)
    messages.success(request, _("Game night started: every game finished from now on counts."))
    return back_to(request, table)


@require_POST
def host_night_end(request: HttpRequest, code: str) -> HttpResponse:
    """The host closes the game night and lands on its summary (the board shows its final scoreboard)."""
    table = host_table(request, code)
    try:
        night = nights.night_end(table=table)
    except nights.NightError as error:
        messages.error(request, str(error))
        return back_to(request, table)
    url = nights.summary_url(night, table.code)
    return redirect(url + ("?back=board" if request.POST.get("back") == "board" else ""))


@require_GET
def group_night(request: HttpRequest, group_id: int, night: int) -> HttpResponse:
    """One game night played for the group (``night``: its id): the same games and figures as its summary."""
    group = _member_group(request, group_id)
    found = nights.group_nights(group).filter(pk=night).first()
    if found is None:
        raise Http404("no such night")
    report = nights.night_report(found)
    return render(request, "groups/night.html", {
        "group": group, "night": found, "board": report.board, "games": report.rows,
    })


def _running_seat_refusal(player: Player) -> str | None:
    """Why deletion waits (a message), for a seat in a running game the table's seats no longer show.

    The lobby refuses for a seat at a table whose game runs (``account.deletion_refusal``); a seat
    moved to another phone by a seat link is still this player's seat in the running game.
    """
    if GameSeat.objects.filter(player=player, bot="", game__status=Game.RUNNING).exists():
        return _("You are playing a game that is still running. Finish it, or ask the host to hand your "
                 "seat to a bot, then delete your account.")
    return None


@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    """Delete my account: GET asks for the password (and says what goes and what stays); only a POST deletes.

    What is deleted (``lobby.account.account_erase``): the user, the nickname, group memberships
    (a group they made passes to its longest-standing member), seats at idle tables and every
    session signed in to it; here, in the same transaction, the names stored on their game seats.
    Their games stay in the others' history, stats and replays under a neutral name. Refused while
    they play or host a running game. A wrong password changes nothing (and counts as a log-in try).
    """
    user = request.user
    player = Player.objects.filter(user=user, deleted=False).first() if user.is_authenticated else None
    if player is None:
        return redirect(f"{reverse('login')}?next={reverse('account_delete')}")
    refusal = account.deletion_refusal(player) or _running_seat_refusal(player)
    form = account.DeleteAccountForm(user, request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        # Password tries count with the log-in's: per address, per address and username, per username.
        if limits.login_limited(request, user.get_username()):
            return limits.too_many(request, _("Too many tries. Wait a minute, then try again."))
        if refusal:
            status = 409
        elif not form.is_valid():
            status = 400
        else:
            try:
                with transaction.atomic():
                    refusal = _running_seat_refusal(player)
                    if refusal:
                        raise LobbyError(refusal)
                    # The lobby's part checks again under the tables' locks (LobbyError: nothing changed).
                    account.account_erase(player=player, user=user)
                    GameSeat.objects.filter(player=player).update(name="")
                    services.forget_ender(player=player)
            except LobbyError as error:
                refusal, status = str(error), 409
            else:
                logout(request)
                messages.success(request, _("Your account is deleted. Your games stay in the other "
                                            "players' history under a neutral name."))
                return redirect("home")
    return render(request, "lobby/account_delete.html", {"form": form, "refusal": refusal}, status=status)
