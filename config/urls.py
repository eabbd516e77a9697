from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.urls import include, path

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
    path("t/<str:code>/", game.table_page, name="table"),
    path("t/<str:code>/join/", lobby.table_join, name="table_join"),
    path("t/<str:code>/seat/", lobby.seat_action, name="seat_action"),
    path("t/<str:code>/settings/", lobby.table_settings, name="table_settings"),
    path("t/<str:code>/seat-link/", game.seat_link_create, name="seat_link_create"),
    path("t/<str:code>/move-me/", game.move_me, name="move_me"),
    path("t/<str:code>/qr.svg", lobby.table_qr, name="table_qr"),
    path("t/<str:code>/board/", game.board_page, name="board"),
    path("t/<str:code>/rev/", game.table_revision, name="table_revision"),
    path("t/<str:code>/move/", game.move, name="move"),
    path("t/<str:code>/wait/", game.wait, name="wait"),
    path("t/<str:code>/host/", game.host_action, name="host_action"),
    path("s/<str:token>/", game.seat_link, name="seat_link"),
    path("history/", game.history, name="history"),
    path("g/<int:game_id>/", game.game_detail, name="game_detail"),
    path("rules/", game.rules_index, name="rules_index"),
    path("rules/<str:engine>/", game.rules, name="rules"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
