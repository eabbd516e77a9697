"""Screens in push frames through the table socket (``gameplay.live.consumers`` with ``gameplay.screens.table``).

A page that names its screen in the socket URL (``?view=phone`` / ``?view=board``) gets
``{"v": n, "f": {id: html}, "t": {id: tag}}``: its first push the whole screen, then the fragments
that changed, the same bytes (but for the per-render tokens) as that browser's htmx GET at that
moment, so a phone's frame holds its own seat's secrets and public facts only, and the board's
frame public facts only. When the page must ask for itself (its session ended, no CSRF cookie),
the frame carries the number alone.
"""

from __future__ import annotations

import itertools

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from gameplay.live import frames as pushes
from gameplay.selectors import game_state
from gameplay.services import move_submit
from tests.conftest import Guest, start
from tests.gameplay.helpers import awaited_movers, legal, move_data
from tests.gameplay.test_privacy import normalized
from tools.loadtest import apply_frame

ROLE = 'data-test="role"'


def cookie_header(guest: Guest, leave_out: tuple[str, ...] = ()) -> bytes:
    return "; ".join(f"{name}={morsel.value}" for name, morsel in guest.client.cookies.items()
                     if name not in leave_out).encode()


def socket(code: str, guest: Guest | None = None, query: str = "?view=phone", leave_out: tuple[str, ...] = ()):
    """A same-origin table socket with ``guest``'s cookies (none for None), as a page opens it."""
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if guest is not None:
        headers.append((b"cookie", cookie_header(guest, leave_out)))
    return WebsocketCommunicator(application, f"/ws/t/{code}/{query}", headers=headers)


async def opened(communicator: WebsocketCommunicator) -> int:
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_json_from(timeout=5)
    assert set(first) == {"v"}  # the first frame: the number the page was loaded at
    return first["v"]


async def frame_after(communicator: WebsocketCommunicator, known: int) -> dict:
    """The next frame newer than ``known`` (a push queued before connecting may repeat it)."""
    while True:
        frame = await communicator.receive_json_from(timeout=10)
        if frame.get("v", -1) > known:
            return frame


def a_move(table, people, game) -> None:
    (mover,) = awaited_movers(game)
    answer = people[mover].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, mover)[0]))
    assert answer.status_code == 200


def htmx_get(guest: Guest | None, path: str) -> bytes:
    """The htmx GET of ``path`` by ``guest``'s browser, or by a browser with no session (None)."""
    client = guest.client if guest is not None else Client()
    return client.get(path, HTTP_HX_REQUEST="true").content


@pytest.mark.django_db(transaction=True)
async def test_each_phone_and_the_board_get_what_their_own_get_gets(redis_layer, table_with):
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    for person in people:  # a browser holds its CSRF cookie from the page it loaded
        await sync_to_async(person.get)(f"/t/{table.code}/")
    phones = [socket(table.code, person) for person in people]
    board = socket(table.code, None, query="?view=board")
    known = [await opened(s) for s in [*phones, board]]
    (mover,) = await sync_to_async(awaited_movers)(game)
    await sync_to_async(a_move)(table, people, game)
    roles = (await sync_to_async(game_state)(game))["roles"]
    shown = {}
    for seat, (person, phone) in enumerate(zip(people, phones, strict=True)):
        frame = await frame_after(phone, known[seat])
        if seat == mover:  # its POST's answer holds the panel (test_the_movers_own_socket…)
            assert frame == {"v": known[seat] + 1}
            continue
        assert set(frame) == {"v", "f"} and set(frame["f"]) == {"private-view"}, frame  # the first: whole
        html = frame["f"]["private-view"]
        assert f'data-revision="{frame["v"]}"' in html
        get = await sync_to_async(htmx_get)(person, f"/t/{table.code}/")
        assert normalized(html.encode()) == normalized(get)
        assert ROLE in html  # this seat's own secret, face down
        shown[seat] = normalized(html.encode())
    # Each frame is its own seat's, not one shared page: seats of different roles got different frames.
    assert len(set(roles)) > 1
    for one, other in itertools.combinations(sorted(shown), 2):
        if roles[one] != roles[other]:
            assert shown[one] != shown[other]
    frame = await frame_after(board, known[-1])
    assert set(frame) == {"v", "f", "t", "tag"} and set(frame["f"]) == {"public-view", "moderator-view"}
    get = await sync_to_async(htmx_get)(None, f"/t/{table.code}/board/")
    assert normalized(frame["f"]["public-view"].encode()) == normalized(get)
    assert not any(ROLE in html or "data-peek" in html for html in frame["f"].values())
    for s in [*phones, board]:
        await s.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_whose_session_ended_gets_no_secret(redis_layer, table_with):
    """Judged against the session as it is now: a phone logged out after opening its socket."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    awaited = await sync_to_async(awaited_movers)(game)
    leaving = people[next(seat for seat in range(1, 5) if seat not in awaited)]
    await sync_to_async(leaving.get)(f"/t/{table.code}/")
    phone = socket(table.code, leaving)
    known = await opened(phone)
    await sync_to_async(leaving.client.logout)()  # the session this socket's cookie names is gone
    await sync_to_async(a_move)(table, people, game)
    frame = await frame_after(phone, known)
    assert set(frame) == {"v"}  # the page refetches itself (its answer deletes the dead session's cookie)
    await phone.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_page_without_its_csrf_cookie_gets_the_number_and_refetches(redis_layer, table_with):
    """The phone's forms need a CSRF cookie the socket cannot set: the push stays a number."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    phone = socket(table.code, people[1], leave_out=("csrftoken",))
    known = await opened(phone)
    await sync_to_async(a_move)(table, people, game)
    assert await frame_after(phone, known) == {"v": known + 1}
    await phone.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("query", ["", "?view=", "?view=admin", "?view=../board", "?other=phone"])
async def test_a_socket_that_names_no_known_partial_gets_numbers_only(redis_layer, table_with, query):
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    await sync_to_async(people[1].get)(f"/t/{table.code}/")
    phone = socket(table.code, people[1], query=query)
    known = await opened(phone)
    await sync_to_async(a_move)(table, people, game)
    assert await frame_after(phone, known) == {"v": known + 1}
    await phone.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_burst_of_moves_ends_with_the_newest_partial(redis_layer, table_with):
    """Pushes that queue during a render are not rendered again; the last frame is the table's latest."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    await sync_to_async(people[2].get)(f"/t/{table.code}/")
    phone = socket(table.code, people[2])
    known = await opened(phone)
    for _ in range(4):
        await sync_to_async(game.refresh_from_db)()
        await sync_to_async(a_move_any)(table, people, game)
    await sync_to_async(table.refresh_from_db)()
    seen: list[int] = []
    page = (await sync_to_async(htmx_get)(people[2], f"/t/{table.code}/")).decode()
    while not seen or seen[-1] < table.revision:
        frame = await frame_after(phone, seen[-1] if seen else known)
        assert "f" in frame
        page = apply_frame(page, frame)
        assert page is not None
        seen.append(frame["v"])
    assert seen == sorted(set(seen))  # never an older screen after a newer one, never one twice
    get = await sync_to_async(htmx_get)(people[2], f"/t/{table.code}/")
    assert normalized(page.encode()) == normalized(get)
    await phone.disconnect()


def a_move_any(table, people, game) -> None:
    """One legal move by whichever seat the game awaits first (several may be awaited: a vote),
    made without a page (nobody's POST answer holds the panel)."""
    mover = awaited_movers(game)[0]
    result = move_submit(game_id=game.pk, player=people[mover].player, version=game.version,
                         move_id=f"burst-{game.version}", action=legal(game, mover)[0])
    assert not result.duplicate


@pytest.mark.django_db
def test_one_push_reads_the_table_once_for_every_socket_of_a_process(table_with, django_assert_num_queries):
    """The first socket of a push reads the table, its game and seats; the others read nothing of them."""
    from gameplay.live import frames as pushes

    table, people = table_with(5)
    start(table, people[0])
    for person in people:
        person.get(f"/t/{table.code}/")
    sockets = [pushes.Socket(kind="phone", session_key=p.client.cookies["sessionid"].value, language="en",
                              csrf_secret=p.client.cookies["csrftoken"].value, url="http://testserver")
               for p in people]
    table.refresh_from_db()
    pushes.push_frame(table.pk, table.code, table.revision, sockets[0])
    with django_assert_num_queries(0):  # sessions come from the cache; the rows from this push
        for one in sockets[1:]:
            assert pushes.push_frame(table.pk, table.code, table.revision, one)["f"]


@pytest.mark.django_db(transaction=True)
async def test_the_movers_own_socket_gets_the_number_its_answer_holds_the_panel(redis_layer, table_with):
    """The phone whose move made a revision got that panel as its POST's answer: its socket is not
    sent the same partial again (only the number, which makes it refetch if the answer was lost)."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    (mover,) = await sync_to_async(awaited_movers)(game)
    watcher = next(seat for seat in range(5) if seat != mover)
    for person in people:
        await sync_to_async(person.get)(f"/t/{table.code}/")
    mine, theirs = socket(table.code, people[mover]), socket(table.code, people[watcher])
    known_mine, known_theirs = await opened(mine), await opened(theirs)
    await sync_to_async(a_move)(table, people, game)
    assert await frame_after(mine, known_mine) == {"v": known_mine + 1}
    assert "f" in await frame_after(theirs, known_theirs)
    for s in (mine, theirs):
        await s.disconnect()


def test_a_push_leaves_presence_to_the_socket(table_with):
    """A push is not the browser asking: it marks nobody present (a phone's socket and its requests do)."""
    from django.core.cache import cache

    from gameplay import presence

    table, people = table_with(5)
    game = start(table, people[0])
    people[1].get(f"/t/{table.code}/")
    cache.clear()
    socket = pushes.Socket(kind="phone", session_key=people[1].client.cookies["sessionid"].value, language="en",
                            csrf_secret=people[1].client.cookies["csrftoken"].value, url="http://testserver")
    table.refresh_from_db()
    assert ROLE in pushes.push_frame(table.pk, table.code, table.revision, socket)["f"]["private-view"]
    assert presence.quiet_for(game, table.pk)[1] == float("inf")
    people[1].client.get(f"/t/{table.code}/", HTTP_HX_REQUEST="true")
    assert presence.quiet_for(game, table.pk)[1] < 5


@pytest.mark.django_db(transaction=True)
async def test_a_board_opened_in_a_players_browser_does_not_mark_that_player_present(redis_layer, table_with):
    """Only a phone's socket keeps its player present: a board page in the same browser is not their phone."""
    from gameplay import presence

    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    await sync_to_async(people[1].get)(f"/t/{table.code}/board/")
    await sync_to_async(presence.cache.clear)()
    board = socket(table.code, people[1], query="?view=board")
    await opened(board)
    assert (await sync_to_async(presence.quiet_for)(game, table.pk))[1] == float("inf")
    phone = socket(table.code, people[1])
    await opened(phone)
    assert (await sync_to_async(presence.quiet_for)(game, table.pk))[1] < 5
    for s in (board, phone):
        await s.disconnect()


def test_the_push_names_the_answered_session_by_a_digest_on_every_process():
    """The push event carries a digest of the mover's session key, never the key, so a socket on any
    process knows its own move's echo without rendering it; every other socket renders."""
    from lobby import notify

    key = "k3y0fas3ss10n"
    digest = notify.session_digest(key)
    assert digest and key not in digest and digest == notify.session_digest(key)
    assert notify.session_digest(None) == notify.session_digest("") == ""
    with notify.answering(key):
        assert notify._answering.get() == digest
    assert notify._answering.get() == ""


@pytest.mark.django_db(transaction=True)
async def test_the_movers_next_frame_fits_the_panel_its_post_answered(redis_layer, table_with):
    """A page holds the panel its POST answered, which no frame drew: the next push (another seat's move, which takes
    that page's undo offer away again) applies to that panel as table.js applies it, and shows what a GET would, with
    no refetch."""
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    for person in people:
        await sync_to_async(person.get)(f"/t/{table.code}/")
    (leader,) = await sync_to_async(awaited_movers)(game)
    voter = next(seat for seat in range(5) if seat != leader)
    mine = socket(table.code, people[voter])
    known = await opened(mine)

    async def post(seat: int):
        data = await sync_to_async(move_data)(game, (await sync_to_async(legal)(game, seat))[0])
        return await sync_to_async(people[seat].htmx_post)(f"/t/{table.code}/move/", data)

    await post(leader)  # the team: this socket is sent its panel
    known = (await frame_after(mine, known))["v"]
    answer = await post(voter)  # its vote, answered with its panel (and the offer to take it back)
    assert answer.status_code == 200 and 'data-test="undo-ask"' in answer.content.decode()
    assert await frame_after(mine, known) == {"v": known + 1}
    await post(next(seat for seat in await sync_to_async(awaited_movers)(game) if seat != voter))
    page = apply_frame(answer.content.decode(), await frame_after(mine, known + 1))
    assert page is not None  # else table.js would have had to refetch
    assert normalized(page.encode()) == normalized(await sync_to_async(htmx_get)(people[voter], f"/t/{table.code}/"))
    await mine.disconnect()


@pytest.mark.django_db
def test_a_frame_older_than_one_drawn_for_the_socket_is_its_number_alone(table_with):
    """A move's answer and a push drawn for one socket in either order: the second of one revision (or the older) is
    the number alone, and what the socket is counted as holding stays the first one's."""
    table, people = table_with(5)
    start(table, people[0])
    people[0].get(f"/t/{table.code}/")
    one = pushes.Socket(kind="phone", session_key=people[0].client.cookies["sessionid"].value, language="en",
                        csrf_secret=people[0].client.cookies["csrftoken"].value, url="http://testserver")
    table.refresh_from_db()
    assert pushes.push_frame(table.pk, table.code, table.revision, one)["f"]
    held = dict(one.sent)
    assert pushes.push_frame(table.pk, table.code, table.revision, one) == {"v": table.revision}
    assert one.sent == held
