"""The site's routes. ``<code:…>`` is a table code, normalized by ``lobby.converters.TableCodeConverter``
(registered in ``LobbyConfig.ready``); each view looks the table up with ``lobby.views.table_or_404``.
The socket's route is ``gameplay.routing``.
"""

from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.urls import include, path

from gameplay import controls
from gameplay import views as game
from lobby import views as lobby

urlpatterns = [
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
    # The host's game controls.
    path("t/<code:code>/host/start/", controls.host_start, name="host_start"),
    path("t/<code:code>/host/again/", controls.host_again, name="host_again"),
    path("t/<code:code>/host/pause/", controls.host_pause, name="host_pause"),
    path("t/<code:code>/host/resume/", controls.host_resume, name="host_resume"),
    path("t/<code:code>/host/end/", controls.host_end, name="host_end"),
    path("t/<code:code>/host/bot/", controls.host_bot, name="host_bot"),
    # The host role changes hands: to a seated player, or to a tablet by a one-time link.
    path("t/<code:code>/host/pass/", lobby.host_pass, name="host_pass"),
    path("t/<code:code>/host/link/", lobby.host_link_create, name="host_link_create"),
    path("h/<str:token>/", lobby.host_link_claim, name="host_link_claim"),
    # Seat links: a seat of a running game moves to a new phone.
    path("t/<code:code>/seat-link/", controls.seat_link_create, name="seat_link_create"),
    path("t/<code:code>/move-me/", controls.move_me, name="move_me"),
    path("s/<str:token>/", controls.seat_link, name="seat_link"),
    path("history/", game.history, name="history"),
    path("g/<int:game_id>/", game.game_detail, name="game_detail"),
    path("rules/", game.rules_index, name="rules_index"),
    path("rules/<str:engine>/", game.rules, name="rules"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
