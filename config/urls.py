"""The site's routes. ``<code:…>`` is a table code, normalized by ``lobby.converters.TableCodeConverter``
(registered in ``LobbyConfig.ready``); each view looks the table up with ``lobby.views.table_or_404``.
The socket's route is ``gameplay.live.routing``.
"""

from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpRequest
from django.urls import include, path
from django.views.decorators.http import require_GET
from django.views.generic import TemplateView

from community import nights
from community import views as group
from gameplay.web import controls, passplay
from gameplay.web import undo as undo_views
from gameplay.web import views as game
from infra.health import health
from lobby import account, signin
from lobby import views as lobby


@require_GET
def favicon(request: HttpRequest) -> FileResponse:
    """``/favicon.ico``: browsers ask for it before they read any page's ``<link rel=icon>``."""
    found = finders.find("icons/favicon.ico")
    if not found:
        raise Http404("no favicon")
    response = FileResponse(open(found, "rb"), content_type="image/x-icon")  # noqa: SIM115 (FileResponse closes it)
    response["Cache-Control"] = "public, max-age=86400"
    return response


urlpatterns = [
    # Installable: the web app manifest (in the page's language) and the favicon at the site's root.
    path("manifest.webmanifest", TemplateView.as_view(template_name="manifest.webmanifest",
                                                      content_type="application/manifest+json"), name="manifest"),
    path("favicon.ico", favicon, name="favicon"),
    # For a load balancer: 200 while this process reaches its database (and Redis), else 503 (infra/health.py).
    path("health/", health, name="health"),
    path("", lobby.home, name="home"),
    path("guest/", lobby.guest, name="guest"),
    path("signup/", lobby.signup, name="signup"),
    path("login/", lobby.PlayerLoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("new/", lobby.table_create, name="table_create"),
    path("find/", lobby.table_find, name="table_find"),
    path("t/<code:code>/", game.table_page, name="table"),
    path("t/<code:code>/join/", lobby.table_join, name="table_join"),
    # Seats between games: the host arranges them, a player may leave their own.
    path("t/<code:code>/seat/up/", lobby.seat_up, name="seat_up"),
    path("t/<code:code>/seat/down/", lobby.seat_down, name="seat_down"),
    path("t/<code:code>/seat/remove/", lobby.seat_remove, name="seat_remove"),
    path("t/<code:code>/seat/leave/", lobby.seat_leave, name="seat_leave"),
    path("t/<code:code>/seat/add-bot/", lobby.seat_add_bot, name="seat_add_bot"),
    path("t/<code:code>/settings/", lobby.table_settings, name="table_settings"),
    path("t/<code:code>/qr.svg", lobby.table_qr, name="table_qr"),
    path("t/<code:code>/board/", game.board_page, name="board"),
    path("t/<code:code>/board/controls/", game.board_controls, name="board_controls"),
    path("t/<code:code>/rev/", game.table_revision, name="table_revision"),
    path("t/<code:code>/move/", game.move, name="move"),
    path("t/<code:code>/wait/", game.wait, name="wait"),
    path("t/<code:code>/undo/", undo_views.undo_ask, name="undo_ask"),
    path("t/<code:code>/undo/answer/", undo_views.undo_answer, name="undo_answer"),
    path("t/<code:code>/host/undo/", undo_views.host_undo, name="host_undo"),
    # The host's game controls.
    path("t/<code:code>/host/start/", controls.host_start, name="host_start"),
    path("t/<code:code>/host/again/", controls.host_again, name="host_again"),
    path("t/<code:code>/host/pause/", controls.host_pause, name="host_pause"),
    path("t/<code:code>/host/resume/", controls.host_resume, name="host_resume"),
    path("t/<code:code>/host/end/", controls.host_end, name="host_end"),
    path("t/<code:code>/host/bot/", controls.host_bot, name="host_bot"),
    # Game nights: the host opens and closes a series; its summary (players, hosts, group members only).
    path("t/<code:code>/host/night/start/", group.host_night_start, name="host_night_start"),
    path("t/<code:code>/host/night/end/", group.host_night_end, name="host_night_end"),
    path("t/<code:code>/nights/<int:night_id>/", nights.night_summary, name="night_summary"),
    # The host role changes hands: to a seated player, or to a tablet by a one-time link.
    path("t/<code:code>/host/pass/", lobby.host_pass, name="host_pass"),
    path("t/<code:code>/host/link/", lobby.host_link_create, name="host_link_create"),
    path("h/<str:token>/", lobby.host_link_claim, name="host_link_claim"),
    # Seat links: a seat of a running game moves to a new phone.
    path("t/<code:code>/seat-link/", controls.seat_link_create, name="seat_link_create"),
    path("t/<code:code>/move-me/", controls.move_me, name="move_me"),
    path("s/<str:token>/", controls.seat_link, name="seat_link"),
    # A seat played on the host's device (pass-and-play): marked, given back, and its blackout page.
    path("t/<code:code>/host/share/", controls.seat_share, name="seat_share"),
    path("t/<code:code>/unshare/", controls.seat_unshare, name="seat_unshare"),
    path("t/<code:code>/seat/<int:index>/", passplay.shared_seat, name="shared_seat"),
    path("t/<code:code>/seat/<int:index>/unlock/", passplay.shared_unlock, name="shared_unlock"),
    path("t/<code:code>/seat/<int:index>/lock/", passplay.shared_lock, name="shared_lock"),
    path("t/<code:code>/seat/<int:index>/pin/", passplay.shared_pin, name="shared_pin"),
    path("t/<code:code>/seat/<int:index>/result/", passplay.shared_result, name="shared_result"),
    path("t/<code:code>/seat/<int:index>/result/show/", passplay.shared_result_show, name="shared_result_show"),
    path("t/<code:code>/host/pin-clear/", passplay.host_pin_clear, name="host_pin_clear"),
    path("history/", game.history, name="history"),
    path("g/<int:game_id>/", game.game_detail, name="game_detail"),
    # Groups (members only), their invite links, a player's stats, how ratings work.
    path("groups/", group.groups_index, name="groups"),
    path("groups/<int:group_id>/", group.group_detail, name="group_detail"),
    path("groups/<int:group_id>/players/<int:player_id>/", group.group_player, name="group_player"),
    path("groups/<int:group_id>/nights/<int:night>/", group.group_night, name="group_night"),
    path("groups/<int:group_id>/invite/", group.group_invite_renew, name="group_invite_renew"),
    path("groups/<int:group_id>/leave/", group.group_leave, name="group_leave"),
    path("groups/<int:group_id>/fair/", group.group_fair_deals, name="group_fair_deals"),
    path("j/<str:token>/", group.group_join, name="group_join"),
    path("stats/", group.my_stats, name="my_stats"),
    path("stats/my-games.<str:fmt>", group.my_export, name="my_export"),
    # Your data: the account page (downloads) and deleting the account (a POST with the password).
    path("account/", account.account, name="account"),
    path("account/delete/", group.account_delete, name="account_delete"),
    path("ratings/about/", group.ratings_about, name="ratings_about"),
    path("rules/", game.rules_index, name="rules_index"),
    path("rules/<str:engine>/", game.rules, name="rules"),
    path("i18n/", include("django.conf.urls.i18n")),
    # The admin site's log-in, limited with the players' log-in (the same counters), before the admin's own routes.
    path("admin/login/", signin.admin_login, name="admin_login"),
    path("admin/", admin.site.urls),
]
