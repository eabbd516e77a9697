"""Screens in push frames (``gameplay.screens.table``): what a page assembles from its frames is what its GET shows.

A phone's or board's socket gets ``{"v": n, "f": {id: html}, "t": {id: tag}}``: the fragments of its screen
whose tag moved. Swapped into the page by element id (as ``table.js`` does), they must give, byte for byte
but for the per-render tokens, what that browser's own htmx GET gets at that moment, for every seat and the
board, in several states of every game and in en, fa and ja. A vote at Inside Job sends the public head to
every phone and a private fragment to the voter alone.
"""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from gameplay.live import frames as pushes
from gameplay.models import Game
from gameplay.screens import table as screens
from gameplay.selectors import game_state
from tests.conftest import Guest, start
from tests.gameplay.helpers import awaited_movers, legal, move_data, play_until_over
from tests.gameplay.test_privacy import normalized
from tools.loadtest import apply_frame

ROLE = 'data-test="role"'
LANGUAGES = ["en", "fa", "ja"]


def assemble(page: str, frame: dict) -> str:
    """``page`` with ``frame`` applied as table.js applies it (``loadtest.apply_frame``, the tool's copy of it):
    a frame that would make the page refetch fails the test."""
    assembled = apply_frame(page, frame)
    assert assembled is not None, sorted(frame.get("f", {}))
    return assembled


def socket_of(guest: Guest | None, kind: str, language: str) -> pushes.Socket:
    cookies = guest.client.cookies if guest is not None else {}
    session = cookies.get("sessionid")
    csrf = cookies.get("csrftoken")
    return pushes.Socket(kind=kind, session_key=session.value if session else None, language=language,
                          csrf_secret=csrf.value if csrf else "", url="http://testserver")


def board_public(frame: dict) -> dict:
    """A board socket's frame as its public partial takes it: the board's GET is that partial alone, and the drawer
    beside it comes in the same frame."""
    return {"v": frame["v"], **{key: {k: v for k, v in frame[key].items() if k != "moderator-view"}
                                for key in ("f", "t")}}


def htmx_get(guest: Guest | None, path: str, language: str) -> str:
    client = guest.client if guest is not None else Client()
    answer = client.get(path, HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 200
    return answer.content.decode()


def phones_open(table, people: list[Guest]) -> list[pushes.Socket]:
    """Every phone's page loaded (its cookies set) and its socket sent its first frame (the whole panel)."""
    for person in people:
        person.get(f"/t/{table.code}/")
    sockets = [socket_of(person, "phone", "en") for person in people]
    table.refresh_from_db()
    for socket in sockets:
        pushes.push_frame(table.pk, table.code, table.revision, socket)
    return sockets


def one_move(game: Game, people: list[Guest], table) -> None:
    mover = awaited_movers(game)[0]
    answer = people[mover].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, mover)[0]))
    assert answer.status_code == 200, answer.content[:300]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("engine", "players"), [("inside_job", 5), ("coup", 3), ("good_cop_bad_cop", 4),
                                                  ("good_cop_bad_cop_health", 4)])
def test_frames_assembled_on_each_page_equal_its_get_for_many_states(table_with, engine, players, language):
    table, people = table_with(players, engine=engine)
    game = start(table, people[0])
    pages = [htmx_get(person, f"/t/{table.code}/", language) for person in people]  # the page sets its cookie
    sockets = [socket_of(person, "phone", language) for person in people]
    board_socket = socket_of(None, "board", language)
    for seat, socket in enumerate(sockets):  # each socket's first frame: the whole panel
        frame = pushes.push_frame(table.pk, table.code, 0, socket)
        assert set(frame["f"]) == {"private-view"}
        pages[seat] = assemble(pages[seat], frame)
    board_page = htmx_get(None, f"/t/{table.code}/board/", language)
    pushes.push_frame(table.pk, table.code, 0, board_socket)
    for _ in range(12):
        game.refresh_from_db()
        if game.over or not awaited_movers(game):  # a silent window waits for its clock alone
            break
        one_move(game, people, table)
        table.refresh_from_db()
        for seat, (person, socket) in enumerate(zip(people, sockets, strict=True)):
            frame = pushes.push_frame(table.pk, table.code, table.revision, socket)
            get = htmx_get(person, f"/t/{table.code}/", language)
            pages[seat] = assemble(pages[seat], frame)
            assert normalized(pages[seat].encode()) == normalized(get.encode()), (seat, sorted(frame.get("f", {})))
        frame = pushes.push_frame(table.pk, table.code, table.revision, board_socket)
        board_page = assemble(board_page, board_public(frame))
        get = htmx_get(None, f"/t/{table.code}/board/", language)
        assert normalized(board_page.encode()) == normalized(get.encode())
        assert ROLE not in board_page and "data-peek" not in board_page


def test_the_load_tool_reads_a_whole_page_s_revision_from_its_panel(table_with):
    """A whole page (what the load tool holds after the host's "Play again", a plain form POST) keeps the revision it
    loaded at on its <body>, which table.js never moves; frames move the panel's. The tool reads the panel's, so
    the screen is not taken for one stuck at the page's load (every later move counted an error)."""
    from tools.loadtest import REVISION

    table, people = table_with(5)
    game = start(table, people[0])
    page = people[1].get(f"/t/{table.code}/").content.decode()
    body_tag = re.compile(r'<body[^>]*\sdata-revision="(\d+)"')
    loaded = int(body_tag.search(page).group(1))
    socket = socket_of(people[1], "phone", "en")
    table.refresh_from_db()
    page = assemble(page, pushes.push_frame(table.pk, table.code, table.revision, socket))
    one_move(game, people, table)
    table.refresh_from_db()
    page = assemble(page, pushes.push_frame(table.pk, table.code, table.revision, socket))
    assert int(body_tag.search(page).group(1)) == loaded < table.revision  # the page's own, never moved
    assert int(REVISION.search(page.encode()).group(1)) == table.revision
    board = Client().get(f"/t/{table.code}/board/").content
    assert int(REVISION.search(board).group(1)) == table.revision


def _span_by_pattern(html: str, element_id: str) -> tuple[int, int] | None:
    """The load tool's element_span as it was, by one pattern over the page: what the faster one must answer."""
    found = re.search(rf'<([a-z][a-z0-9]*)\b[^>]*\bid="{re.escape(element_id)}"', html)
    if found is None:
        return None
    name, depth = found.group(1), 0
    for tag in re.finditer(rf"<(/?){name}\b[^>]*>", html[found.start():]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return found.start(), found.start() + tag.end()
    return None


def test_the_load_tool_finds_every_element_of_real_screens_as_the_pattern_did(table_with):
    from tools.loadtest import element_span

    table, people = table_with(6)
    game = start(table, people[0])
    pages = []
    for _ in range(12):
        pages += [guest.get(f"/t/{table.code}/").content.decode() for guest in people[:3]]
        pages.append(Client().get(f"/t/{table.code}/board/").content.decode())
        one_move(game, people, table)
    pages += [  # what a page never holds, but the pattern answers all the same
        '<p>id="x" in text</p><div data-id="x">a</div>', '<div id="x"><div>in</div><div id="y"></div></div>',
        '<divid="x"></div><span class="a" id="x">b</span>', '<li id="x">open', 'id="x"', '<div id="xy"></div>']
    ids = {found for page in pages for found in re.findall(r'\bid="([^"]+)"', page)} | {"x", "y", "absent"}
    for page in pages:
        for element_id in ids:
            assert element_span(page, element_id) == _span_by_pattern(page, element_id), element_id


def test_a_vote_sends_the_public_head_to_every_phone_and_a_private_fragment_to_the_voter_alone(table_with):
    table, people = table_with(7)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    sockets = phones_open(table, people)
    game.refresh_from_db()
    voter = awaited_movers(game)[0]
    people[voter].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, voter)[0]))
    table.refresh_from_db()
    frames = [pushes.push_frame(table.pk, table.code, table.revision, socket) for socket in sockets]
    for seat, frame in enumerate(frames):
        assert ("pv-seat" in frame["f"]) == (seat == voter), (seat, sorted(frame["f"]))
        assert "pv-head" in frame["f"]
        assert "pv-table" not in frame["f"] and "pv-reference" not in frame["f"]
        if seat != voter:
            assert sum(len(html) for html in frame["f"].values()) < 1000
    heads = {frame["f"]["pv-head"] for frame in frames}
    assert len(heads) == 1  # one public fragment, the same bytes for every phone
    assert ROLE not in next(iter(heads))


def test_at_inside_job_a_new_phase_sends_the_board_its_pieces_not_its_whole_screen(table_with):
    """The board's outer part does not show the phase (the middle piece does), so a proposal, which opens the vote,
    sends the board the pieces that changed and not the whole board; assembled, they are what its GET shows."""
    table, people = table_with(5)
    game = start(table, people[0])
    board_socket = socket_of(None, "board", "en")
    board_page = htmx_get(None, f"/t/{table.code}/board/", "en")
    pushes.push_frame(table.pk, table.code, 0, board_socket)
    assert 'id="bv-now"' in board_page and 'data-phase="propose"' in board_page
    one_move(game, people, table)
    game.refresh_from_db()
    assert game_state(game)["phase"] == "vote"
    table.refresh_from_db()
    frame = pushes.push_frame(table.pk, table.code, table.revision, board_socket)
    assert "public-view" not in frame["f"], sorted(frame["f"])
    assert 'data-phase="vote"' in frame["f"]["bv-now"]
    board_page = assemble(board_page, board_public(frame))
    assert normalized(board_page.encode()) == normalized(htmx_get(None, f"/t/{table.code}/board/", "en").encode())


def test_a_socket_whose_session_ended_gets_the_number_alone(table_with):
    """Judged against the session as it is now: a phone logged out after opening its socket."""
    table, people = table_with(5)
    game = start(table, people[0])
    leaving = people[next(seat for seat in range(1, 5) if seat not in awaited_movers(game))]
    leaving.get(f"/t/{table.code}/")
    socket = socket_of(leaving, "phone", "en")
    assert pushes.push_frame(table.pk, table.code, 0, socket)["f"]
    leaving.client.logout()
    one_move(game, people, table)
    table.refresh_from_db()
    assert pushes.push_frame(table.pk, table.code, table.revision, socket) == {"v": table.revision}


def test_a_phone_without_its_csrf_cookie_gets_the_number_alone(table_with):
    """Its forms need a CSRF cookie the socket cannot set: the page refetches."""
    table, people = table_with(5)
    start(table, people[0])
    socket = socket_of(people[1], "phone", "en")
    socket.csrf_secret = ""
    table.refresh_from_db()
    assert pushes.push_frame(table.pk, table.code, table.revision, socket) == {"v": table.revision}


def page_token(html: str) -> str:
    """The CSRF token a page's header holds (``<body hx-headers>``), which htmx sends and forms.js gives a form."""
    return re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', html).group(1)


def test_a_pushed_screen_holds_no_token_and_the_page_header_posts_its_move(table_with):
    """No form a push draws holds a CSRF token or a move id (the phone gives one as the move leaves): the token of
    the page's header posts the move under Django's CSRF check."""
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    person = people[leader]
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = person.client.cookies
    page = strict.get(f"/t/{table.code}/").content.decode()
    socket = pushes.Socket(
        kind="phone", session_key=strict.cookies["sessionid"].value, language="en",
        csrf_secret=strict.cookies["csrftoken"].value, url="http://testserver")
    table.refresh_from_db()
    panel = pushes.push_frame(table.pk, table.code, table.revision, socket)["f"]["private-view"]
    assert "csrfmiddlewaretoken" not in panel and 'name="move_id" value=""' in panel
    assert not re.search(r'name="move_id" value="[^"]', panel)
    data = move_data(game, legal(game, leader)[0])
    assert strict.post(f"/t/{table.code}/move/", data, HTTP_HX_REQUEST="true").status_code == 403  # no token
    assert strict.post(f"/t/{table.code}/move/", data, HTTP_HX_REQUEST="true",
                       HTTP_X_CSRFTOKEN=page_token(page)).status_code == 200
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_two_phones_of_one_seat_share_one_render_of_its_own_part(table_with):
    """A seat's own part depends on the seat and language, never on the phone: two sockets of one browser (a second
    tab) get the same bytes, rendered once for both."""
    table, people = table_with(5)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].client.get(f"/t/{table.code}/")  # its page sets its CSRF cookie
    sockets = [socket_of(people[leader], "phone", "en") for _ in range(2)]
    table.refresh_from_db()
    found = pushes.ROUNDS_OF_THIS_PROCESS.at(table.pk, table.code, table.revision)
    frames = [found.frame(s, v) for s, v in zip(sockets, screens.viewers_of_sessions(sockets), strict=True)]
    assert frames[0]["f"] == frames[1]["f"] and "csrfmiddlewaretoken" not in frames[0]["f"]["private-view"]
    assert sorted(key[0] for key in found.now._own if key[1] == leader) == ["pv-seat", "pv-tools", "pv-undo"]


def test_reads_never_expire_a_window_the_poll_does(table_with):
    """A page, a partial and a push only read; the /rev/ poll expires a passed deadline where no worker runs."""
    from datetime import timedelta

    from django.utils import timezone

    table, people = table_with(5, timer=30)
    game = start(table, people[0])
    (leader,) = awaited_movers(game)
    people[leader].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, leader)[0]))
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    version = Game.objects.get(pk=game.pk).version
    htmx_get(people[1], f"/t/{table.code}/", "en")
    htmx_get(None, f"/t/{table.code}/board/", "en")
    people[1].get(f"/t/{table.code}/")
    table.refresh_from_db()
    pushes.push_frame(table.pk, table.code, table.revision + 1, socket_of(people[1], "phone", "en"))
    assert Game.objects.get(pk=game.pk).version == version
    assert people[1].get(f"/t/{table.code}/rev/").status_code == 200
    assert Game.objects.get(pk=game.pk).version == version + 1


@pytest.mark.django_db(transaction=True)
async def test_the_consumer_pushes_fragments_and_spares_the_movers_own_socket(redis_layer, table_with):
    table, people = await sync_to_async(table_with)(5)
    game = await sync_to_async(start)(table, people[0])
    for person in people:
        await sync_to_async(person.get)(f"/t/{table.code}/")
    phones = []
    for person in people:
        cookie = "; ".join(f"{name}={m.value}" for name, m in person.client.cookies.items()).encode()
        phones.append(WebsocketCommunicator(application, f"/ws/t/{table.code}/?view=phone", headers=[
            (b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]))
    known = []
    for phone in phones:
        connected, _ = await phone.connect()
        assert connected
        known.append((await phone.receive_json_from(timeout=5))["v"])
    (mover,) = await sync_to_async(awaited_movers)(game)
    await sync_to_async(one_move)(game, people, table)
    roles = (await sync_to_async(game_state)(game))["roles"]
    for seat, phone in enumerate(phones):
        frame = await phone.receive_json_from(timeout=10)
        while frame.get("v", -1) <= known[seat]:
            frame = await phone.receive_json_from(timeout=10)
        if seat == mover:
            assert frame == {"v": known[seat] + 1}
        else:
            assert set(frame) == {"v", "f"} and set(frame["f"]) == {"private-view"}  # its first push: whole
            assert ROLE in frame["f"]["private-view"]
            assert f'data-role="{roles[seat]}"' in frame["f"]["private-view"]
        await phone.disconnect()


def head_sent(frame: dict) -> str:
    """What a frame sends of the phone's public head: the head, or its status line alone (a piece of it)."""
    sent = [frame["f"][key] for key in ("pv-head", "pv-status") if key in frame["f"]]
    assert sent, sorted(frame["f"])
    return "".join(sent)


def test_a_coup_move_or_answer_sends_no_own_part_to_a_seat_whose_cards_and_moves_stay(table_with):
    """Coup's phone is split (engine.phone_private_keys): Income by one seat changes every seat's coins and whose
    turn it is, the public parts, but the own part only of the mover and of the next seat; an answer in a window
    sends the own part to the one who answered alone."""
    table, people = table_with(4, engine="coup")
    game = start(table, people[0])
    sockets = phones_open(table, people)

    def frames_after(seat: int, action: dict) -> list[dict]:
        game.refresh_from_db()
        answer = people[seat].htmx_post(f"/t/{table.code}/move/", move_data(game, action))
        assert answer.status_code == 200, answer.content[:300]
        table.refresh_from_db()
        frames = [pushes.push_frame(table.pk, table.code, table.revision, socket) for socket in sockets]
        assert len({head_sent(frame) for frame in frames}) == 1  # the public status: one for every phone
        assert "data-peek" not in head_sent(frames[0])
        return frames

    (mover,) = awaited_movers(game)
    frames = frames_after(mover, {"type": "income"})
    (after,) = awaited_movers(game)
    assert after != mover
    for seat, frame in enumerate(frames):
        assert ("pv-seat" in frame["f"]) == (seat in (mover, after)), (seat, sorted(frame["f"]))
        assert "pv-table" in frame["f"]  # everyone's coins
    assert len({frame["f"]["pv-table"] for frame in frames}) == 1
    assert "card secret" not in frames[0]["f"]["pv-table"] and "data-peek" not in frames[0]["f"]["pv-table"]

    frames = frames_after(after, {"type": "tax"})  # a challenge window: every other seat may answer
    answering = awaited_movers(game)
    assert sorted(answering) == sorted(set(range(4)) - {after})
    first = answering[0]
    frames = frames_after(first, {"type": "allow"})
    for seat, frame in enumerate(frames):
        assert ("pv-seat" in frame["f"]) == (seat == first), (seat, sorted(frame["f"]))
        if seat != first:
            assert "pv-table" not in frame["f"]


def test_at_good_cop_bad_cop_a_move_that_leaves_another_seats_own_situation_alone_sends_it_no_own_part(table_with):
    """While the seats arrange their cards, one seat's arrangement changes nothing of another seat's own cards,
    equipment or moves: that seat is sent the public head (whom the table waits for) but no ``pv-seat``."""
    table, people = table_with(4, engine="good_cop_bad_cop")
    game = start(table, people[0])
    arranging = awaited_movers(game)
    assert len(arranging) == 4 and all(a["type"] == "arrange" for a in legal(game, arranging[0]))
    sockets = phones_open(table, people)
    mover = arranging[0]
    answer = people[mover].htmx_post(f"/t/{table.code}/move/", move_data(game, legal(game, mover)[0]))
    assert answer.status_code == 200, answer.content[:300]
    table.refresh_from_db()
    frames = [pushes.push_frame(table.pk, table.code, table.revision, socket) for socket in sockets]
    for seat, frame in enumerate(frames):
        assert ("pv-seat" in frame["f"]) == (seat == mover), (seat, sorted(frame["f"]))
    assert len({head_sent(frame) for frame in frames}) == 1
    assert "data-peek" not in head_sent(frames[0])


def test_at_the_health_edition_a_turn_step_sends_no_own_part_to_the_seats_that_wait(table_with):
    """The seat on turn draws (the table's phase moves from draw to act): the seats that wait keep their own part."""
    table, people = table_with(4, engine="good_cop_bad_cop_health")
    game = start(table, people[0])
    for person in people:
        person.get(f"/t/{table.code}/")
    sockets = [socket_of(person, "phone", "en") for person in people]
    for _ in range(8):  # past the identities kept, to a draw
        game.refresh_from_db()
        if game_state(game)["phase"] == "draw":
            break
        one_move(game, people, table)
    assert game_state(game)["phase"] == "draw"
    table.refresh_from_db()
    for socket in sockets:
        pushes.push_frame(table.pk, table.code, table.revision, socket)
    (mover,) = awaited_movers(game)
    one_move(game, people, table)
    game.refresh_from_db()
    assert game_state(game)["phase"] == "act"
    table.refresh_from_db()
    frames = [pushes.push_frame(table.pk, table.code, table.revision, socket) for socket in sockets]
    for seat, frame in enumerate(frames):
        assert ("pv-seat" in frame["f"]) == (seat == mover), (seat, sorted(frame["f"]))
        assert head_sent(frame)



@pytest.mark.parametrize("language", ["en", "fa"])
def test_a_game_s_end_is_one_public_part_on_every_phone_and_each_frame_equals_its_get(table_with, language):
    """At a game's end every phone gets its whole panel: the outcome and the public part (the board's view, rendered
    once for all of them: ``TableNow.ended``) the same bytes on each, the seat's own cards its own, and each frame
    what its GET shows."""
    from django.utils import translation

    from gameplay.screens.table import TableNow
    from gameplay.templatetags.game_tags import native_digits
    from lobby.network import lan_base_url_for

    table, people = table_with(5, engine="inside_job")
    game = start(table, people[0])
    sockets = phones_open(table, people)
    play_until_over(game, lambda: one_move(game, people, table), 200)
    assert game.over
    table.refresh_from_db()
    pages = []
    for person, socket in zip(people, sockets, strict=True):
        # The join link between games: where this page's own request says phones reach the server, as its socket's
        # handshake would (consumers: lan_base_url_for of its Host header).
        socket.language, socket.url = language, lan_base_url_for("testserver", False)
        frame = pushes.push_frame(table.pk, table.code, table.revision, socket)
        assert set(frame["f"]) == {"private-view"}  # the panel's shape changed: sent whole
        get = htmx_get(person, f"/t/{table.code}/", language)
        assert normalized(frame["f"]["private-view"].encode()) == normalized(get.encode())
        pages.append(get)
    with translation.override(language):
        ended = TableNow.read(table.pk).ended(language)
    public, outcome = str(ended["public"]), native_digits(str(ended["outcome"]), language)
    assert public.startswith('<div id="pv-table"') and 'data-test="role"' not in public and "data-peek" not in public
    assert 'data-test="winners"' in outcome and f"{game.seed_hash}" in outcome
    for page in pages:
        assert page.count(public) == 1 and page.count(outcome) == 1
        assert page.count('data-test="role"') == 1  # its own seat's card, in its own part
