"""Lobby pages: home, accounts and guests, creating and joining tables, the host's seat controls.

Every route with a table code in its path gets the code normalized by the ``<code:…>``
converter and looks the table up with :func:`table_or_404` (or :func:`host_table` for the
host's controls), so unknown codes are counted the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from engines.registry import ENGINES
from infra import limits
from lobby import groups, known_tables, services, signin
from lobby.context import is_host
from lobby.forms import (
    JoinForm,
    NicknameForm,
    SignupForm,
    game_choices,
    option_fields,
    options_from_post,
    timer_choices,
    timer_from_post,
)
from lobby.models import HOST_LINK_MINUTES, Table
from lobby.network import lan_base_url, qr_svg
from lobby.services import LobbyError, NotHost

# The game the create-table form opens at: the registry's first.
FIRST_GAME = next(iter(ENGINES))
# A sit-down that did not name the account this browser is logged in to (``lobby.signin``).
ACCOUNT_NOT_CONFIRMED = gettext_lazy("Check whose account this browser is logged in to, then sit down.")


def table_or_404(request: HttpRequest, code: str) -> Table:
    """The table with this code (normalized by the path converter); 404 for an unknown one, which counts as a guess.

    Every route with a code in its path comes through here (phone, board, socket poll, QR,
    joins, host controls), so a guesser learns nothing from any of them once over the limit
    (``limits.TooManyCodes``, answered 429). The limit slows guessing, not play: a browser that
    opened this table before, or whose player sits at it or hosts it, is never refused
    (``lobby.known_tables``); a table found is remembered in the session.
    """
    if _guess_blocked(request, code):
        raise limits.TooManyCodes()
    table = Table.objects.filter(code=code).first()
    if table is None:
        if known_tables.count_miss(request, request.session, code):
            raise limits.TooManyCodes()
        raise Http404("no such table")
    known_tables.remember(request.session, table.code)
    return table


def _guess_blocked(request: HttpRequest, code: str) -> bool:
    """Whether a lookup of ``code`` from this browser is refused by the code-guess limit (counts nothing)."""
    return known_tables.guess_blocked(request, request.session, code, lambda: services.player_id_of(request=request))


def host_only(request: HttpRequest, table: Table) -> Table:
    """``table`` if this browser's player hosts it; raises NotHost (answered 403 by ``lobby.middleware``)."""
    if not is_host(request.player, table):
        raise NotHost()
    return table


def host_table(request: HttpRequest, code: str) -> Table:
    """The table at ``code`` for one of its host's controls: 404 as :func:`table_or_404`, 403 for anyone else."""
    return host_only(request, table_or_404(request, code))


def back_to(request: HttpRequest, table: Table) -> HttpResponse:
    """Back to the page a control was used on: the board (a form's ``back=board``: the moderator's) or the table."""
    if request.POST.get("back") == "board":
        return redirect("board", code=table.code)
    return redirect("table", code=table.code)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The address for phones (text and QR), join by code, create a table, sign in."""
    base = lan_base_url(request)
    player = request.player
    tables = []
    if player:
        # The tables this player sits at or hosts (a moderator has no seat).
        tables = Table.objects.filter(Q(seats__player=player) | Q(host=player)).distinct().order_by("-created")[:5]
    return render(
        request,
        "lobby/home.html",
        {
            "lan_url": base + "/",
            "lan_qr": qr_svg(base + "/"),
            "join_form": JoinForm(),
            "nickname_form": NicknameForm(),
            "tables": tables,
        },
    )


@require_POST
def guest(request: HttpRequest) -> HttpResponse:
    """Sit down as a guest with a nickname; then go where the person was heading.

    A name given on a table's page (opened from its code, link or QR) also takes a seat there;
    an unknown code there counts as a guess, like one typed into "Join a table".
    """
    target = request.POST.get("next") or reverse("home")
    if not target.startswith("/") or target.startswith("//"):
        target = reverse("home")
    code = services.normalize_code(request.POST.get("join", ""))
    table = None
    if code:
        if _guess_blocked(request, code):
            return limits.too_many_codes(request)
        table = Table.objects.filter(code=code).first()
        if table is None and known_tables.count_miss(request, request.session, code):
            return limits.too_many_codes(request)
        if signin.signed_in_account(request.player) is not None:
            # The name form is drawn for a browser without a player; this one is logged in to an account
            # since, which sits down only from a page that names it (``lobby.signin``): nothing happened.
            messages.error(request, ACCOUNT_NOT_CONFIRMED)
            return redirect(target)
    try:
        player = services.player_guest_create(request=request, nickname=request.POST.get("nickname", ""))
        if table is not None:
            services.table_join(table=table, player=player)
            known_tables.remember(request.session, table.code)
        elif code:
            messages.error(request, _("No table has the code %(code)s.") % {"code": code[:10]})
    except LobbyError as error:
        messages.error(request, str(error))
    return redirect(target)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account; a guest keeps their seats and history."""
    if request.method == "POST" and limits.limited(request, "signup"):
        return limits.too_many(request, _("Too many sign-ups from this device. Try again later."))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        guest_id = request.session.get(services.SESSION_KEY)
        login(request, user)
        if guest_id:
            request.session[services.SESSION_KEY] = guest_id
        services.player_attach_user(request=request, user=user)
        return redirect("home")
    return render(request, "lobby/signup.html", {"form": form}, status=400 if request.method == "POST" else 200)


# Attempts are limited per address, per address and username, and per username (a slower brake that
# never holds back an address that has not tried it: ``limits.login_limited``), before the password is
# checked; the admin site's log-in counts with them (``lobby.signin.admin_login``).
@method_decorator(limits.limit_log_ins, name="post")
class PlayerLoginView(LoginView):
    """Log in; a guest's seats join the account if it has no player yet."""

    template_name = "lobby/login.html"

    def form_valid(self, form):
        guest_id = self.request.session.get(services.SESSION_KEY)
        response = super().form_valid(form)
        if guest_id:
            self.request.session[services.SESSION_KEY] = guest_id
        services.player_attach_user(request=self.request, user=form.get_user())
        return response


@require_http_methods(["GET", "POST"])
def table_create(request: HttpRequest) -> HttpResponse:
    """Pick a game, its options and the response timer; get a table code.

    A posted value the form does not offer (an unknown game, a bad option or timer) is answered
    with the form again and a message naming it, never replaced by a default.

    A browser with no player yet gives its name in the same form, to play; a moderator takes no
    seat, so needs no name at the table: they become a guest named "Moderator" (as a host link
    makes one), once the game, the role, the options and the timer were read.
    """
    if request.method == "POST" and limits.limited(request, "table_create"):
        return limits.too_many(request, _("Too many new tables from this device. Try again later."))
    player = request.player
    engine_name = request.POST.get("engine") or request.GET.get("engine") or FIRST_GAME
    status = 200
    if request.method == "POST":
        try:
            if engine_name not in ENGINES:
                raise LobbyError(_("Unknown game."))
            role = request.POST.get("role", "play")
            if role not in ("play", "moderate"):
                raise LobbyError(_("Choose whether you play or moderate."))
            options = options_from_post(engine_name, request.POST)
            timer_seconds = timer_from_post(request.POST, 0)
            if not player:
                nickname = _("Moderator") if role == "moderate" else request.POST.get("nickname", "")
                player = services.player_guest_create(request=request, nickname=nickname)
            group = groups.group_from_post(host=player, data=request.POST)
            table = services.table_create(
                host=player,
                engine=engine_name,
                options=options,
                timer_seconds=timer_seconds,
                seated=role == "play",
            )
            groups.table_group_set(table=table, group=group)
            known_tables.remember(request.session, table.code)
            # A moderator's tablet goes straight to the board: the code, the QR, the seats, the controls.
            return redirect("board" if role == "moderate" else "table", code=table.code)
        except LobbyError as error:
            messages.error(request, str(error))
            status = 400
    if engine_name not in ENGINES:
        engine_name = FIRST_GAME  # a link to an unknown game opens the form at the first one
    return render(
        request,
        "lobby/create.html",
        {
            "games": game_choices(),
            "engine_name": engine_name,
            "all_options": {name: option_fields(name, {}) for name in ENGINES},
            "timers": timer_choices(),
            "default_timer": ENGINES[engine_name].default_timer,
            "nickname_form": NicknameForm(),
            "groups": groups.group_choices(player),
        },
        status=status,
    )


@require_GET
def table_find(request: HttpRequest) -> HttpResponse:
    """Join by code: an unknown code says so plainly (and counts as a guess)."""
    code = services.normalize_code(request.GET.get("code", ""))
    if _guess_blocked(request, code):
        return limits.too_many_codes(request)
    if code and Table.objects.filter(code=code).exists():
        return redirect("table", code=code)
    if code and known_tables.count_miss(request, request.session, code):
        return limits.too_many_codes(request)
    messages.error(request, _("No table has the code %(code)s.") % {"code": code[:10]})
    return redirect("home")


@require_POST
def table_join(request: HttpRequest, code: str) -> HttpResponse:
    """Take a seat at the table: as the player the form named (an account must be named, ``lobby.signin``)."""
    table = table_or_404(request, code)
    if not request.player:
        messages.error(request, _("Choose a name first."))
    elif not signin.confirmed(request, request.player):
        # The table's page names whose account this is and asks again: nothing happened.
        messages.error(request, ACCOUNT_NOT_CONFIRMED)
    else:
        try:
            services.table_join(table=table, player=request.player)
        except LobbyError as error:
            messages.error(request, str(error))
    return redirect("table", code=table.code)


def _seat_id(raw) -> int | None:
    """A seat id from a form, or None when it is not a plausible id."""
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        return None
    return value if 0 <= value < 2**62 else None


def _seat_change(request: HttpRequest, table: Table, change: Callable[[], object]) -> HttpResponse:
    """Run a seat service; what it refuses (a game is on, no such seat) is a message on the page it came from."""
    try:
        change()
    except LobbyError as error:
        messages.error(request, str(error))
    return back_to(request, table)


def _host_seat_change(request: HttpRequest, code: str, change: Callable[[Table, int], object]) -> HttpResponse:
    """One of the host's seat verbs: ``change(table, seat_id)`` on the seat the form names
    (403 for anyone but the host, 400 "Bad seat." for an implausible id)."""
    table = host_table(request, code)
    seat_id = _seat_id(request.POST.get("seat", "0"))
    if seat_id is None:
        return HttpResponse(_("Bad seat."), status=400)
    return _seat_change(request, table, lambda: change(table, seat_id))


@require_POST
def seat_up(request: HttpRequest, code: str) -> HttpResponse:
    """The host moves a seat one place earlier in clockwise order."""
    return _host_seat_change(request, code,
                             lambda table, seat_id: services.seat_move(table=table, seat_id=seat_id, delta=-1))


@require_POST
def seat_down(request: HttpRequest, code: str) -> HttpResponse:
    """The host moves a seat one place later in clockwise order."""
    return _host_seat_change(request, code,
                             lambda table, seat_id: services.seat_move(table=table, seat_id=seat_id, delta=1))


@require_POST
def seat_remove(request: HttpRequest, code: str) -> HttpResponse:
    """The host removes a seat before the start (never their own; a moderator has none)."""
    return _host_seat_change(request, code, lambda table, seat_id: services.seat_remove(table=table, seat_id=seat_id))


@require_POST
def seat_leave(request: HttpRequest, code: str) -> HttpResponse:
    """A player leaves their own seat before the start (the host may clear any seat this way too)."""
    table = table_or_404(request, code)
    seat_id = _seat_id(request.POST.get("seat", "0"))
    if seat_id is None:
        return HttpResponse(_("Bad seat."), status=400)
    player = request.player
    if not (player and table.seats.filter(pk=seat_id, player=player).exists()):
        host_only(request, table)
    return _seat_change(request, table, lambda: services.seat_remove(table=table, seat_id=seat_id))


@require_POST
def seat_add_bot(request: HttpRequest, code: str) -> HttpResponse:
    """The host fills the next empty seat with a bot (``policy``: heuristic or random)."""
    table = host_table(request, code)
    policy = request.POST.get("policy", "heuristic")
    if policy not in ("heuristic", "random"):
        return HttpResponse(_("Unknown bot."), status=400)
    return _seat_change(request, table, lambda: services.seat_add_bot(table=table, policy=policy))


@require_POST
def table_settings(request: HttpRequest, code: str) -> HttpResponse:
    """The host changes the game, options or timer between games (a bad value: a message, no change)."""
    table = host_table(request, code)
    engine_name = request.POST.get("engine", table.engine)
    try:
        if engine_name not in ENGINES:
            raise LobbyError(_("Unknown game."))
        group = groups.group_from_post(host=table.host, data=request.POST)
        services.table_settings_update(
            table=table,
            engine=engine_name,
            options=options_from_post(engine_name, request.POST),
            timer_seconds=timer_from_post(request.POST, table.timer_seconds),
        )
        groups.table_group_set(table=table, group=group)
    except LobbyError as error:
        messages.error(request, str(error))
    return back_to(request, table)


@require_GET
def table_qr(request: HttpRequest, code: str) -> HttpResponse:
    """The join QR code of a table as an SVG image."""
    table = table_or_404(request, code)
    url = lan_base_url(request) + reverse("table", args=[table.code])
    return HttpResponse(qr_svg(url), content_type="image/svg+xml")


@require_POST
def host_pass(request: HttpRequest, code: str) -> HttpResponse:
    """The host hands the host role to a seated player (``seat``: the table seat's id)."""
    return _host_seat_change(request, code, lambda table, seat_id: services.host_pass(table=table, seat_id=seat_id))


@require_POST
def host_link_create(request: HttpRequest, code: str) -> HttpResponse:
    """The host's one-time link (and its QR) that makes a tablet the host; shown on the host's phone."""
    table = host_table(request, code)
    token = services.host_link_create(table=table)
    url = lan_base_url(request) + reverse("host_link_claim", args=[token])
    return render(request, "lobby/host_link.html", {
        "table": table, "url": url, "qr": qr_svg(url), "minutes": HOST_LINK_MINUTES,
    })


@require_http_methods(["GET", "POST"])
def host_link_claim(request: HttpRequest, token: str) -> HttpResponse:
    """Open a host link on the tablet: this browser's player (a new guest if it has none) hosts the table.

    A browser signed in to an account is asked first, naming it (``lobby.signin``): its GET shows the
    question, and only the POST that names the account hosts.
    """
    token = services.clean_token(token)
    if not services.host_link_live(token=token):  # asked first, so a dead link makes no guest
        return render(request, "lobby/message.html", {"message": services.HOST_LINK_DEAD}, status=404)
    account = signin.signed_in_account(request.player)
    if account is not None and not signin.confirmed(request, request.player):
        return render(request, "lobby/host_link_confirm.html", {"account": account},
                      status=409 if request.method == "POST" else 200)
    player = request.player or services.player_guest_create(request=request, nickname=_("Moderator"))
    try:
        table = services.host_link_claim(token=token, player=player)
    except LobbyError as error:
        return render(request, "lobby/message.html", {"message": str(error)}, status=404)
    # This browser now hosts: a new session key, so a key planted in it before is worth nothing.
    request.session.cycle_key()
    return redirect("board", code=table.code)
