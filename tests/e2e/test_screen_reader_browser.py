"""What a screen reader is given (issue 45, item 4): "a phone's private hand can be read by a screen reader on that
phone alone (announced politely, never on the board)", checked in the browser's accessibility tree (what assistive
technology reads, not the markup): Chromium's, through the DevTools protocol (``Accessibility.getFullAXTree``).

For each game, during play, seat 0's phone (360 px) and the board:
- the phone's tree holds one node that is a live region of politeness "polite" whose words carry the seat's secret
  (the ``data-secret-summary`` region's text: tests/gameplay/test_secret_summary.py checks the markup);
- the board's tree holds no node with those words, and no polite live region saying them;
- every public mark the board colours (the kinds of tests/e2e/test_no_colour_browser.py's FAMILIES) is given words:
  its accessible name, or the text of what it holds (a text alternative a screen reader reads).
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import ARTIFACTS, save_screenshots
from tests.e2e.test_board_ux_browser import PLAYERS, finished_table
from tests.e2e.test_no_colour_browser import DURING, FAMILIES, SEEDS, open_screens

pytestmark = pytest.mark.e2e

# The board's coloured marks, shown ones only, each tagged so the DevTools protocol can find its node.
TAG_MARKS = """(families) => {
  const found = [];
  for (const [family, pattern] of Object.entries(families)) {
    const re = new RegExp(pattern);
    for (const el of document.querySelectorAll('[class]')) {
      if (![...el.classList].some(c => re.test(c))) continue;
      if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
      if (el.closest('[aria-hidden="true"]')) continue;  // drawn for the eye; its words are said beside it
      el.setAttribute('data-e2e-mark', String(found.length));
      found.push({family, where: el.outerHTML.slice(0, 160)});
    }
  }
  return found;
}"""


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


class Tree:
    """A page's accessibility tree as Chromium builds it for assistive technology."""

    def __init__(self, page) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Accessibility.enable")
        self.nodes = self.cdp.send("Accessibility.getFullAXTree")["nodes"]
        self.by_id = {node["nodeId"]: node for node in self.nodes}
        self.by_dom = {node["backendDOMNodeId"]: node for node in self.nodes if "backendDOMNodeId" in node}

    @staticmethod
    def prop(node: dict, name: str):
        for found in node.get("properties", []):
            if found["name"] == name:
                return found["value"].get("value")
        return None

    @staticmethod
    def name(node: dict) -> str:
        return "" if node.get("ignored") else words(node.get("name", {}).get("value", ""))

    def said(self, node: dict) -> str:
        """What a screen reader says of ``node``: its name, else the words of what it holds (ignored nodes silent)."""
        return self.name(node) or words(" ".join(self.said(self.by_id[child]) for child in node.get("childIds", [])
                                                 if child in self.by_id))

    def live_regions(self, politeness: str) -> list[dict]:
        """The roots of the live regions of ``politeness`` (a node whose own ``live`` property says so)."""
        return [node for node in self.nodes if not node.get("ignored") and self.prop(node, "live") == politeness
                and not self._inside_live(node, politeness)]

    def _inside_live(self, node: dict, politeness: str) -> bool:
        parent = self.by_id.get(node.get("parentId"))
        while parent is not None:
            if self.prop(parent, "live") == politeness:
                return True
            parent = self.by_id.get(parent.get("parentId"))
        return False

    def everything(self) -> str:
        """Every word the tree holds, in its order (each node's name and what it holds)."""
        def walk(node: dict) -> list[str]:
            return [self.name(node)] + [w for child in node.get("childIds", []) if child in self.by_id
                                        for w in walk(self.by_id[child])]
        return words(" ".join(walk(self.nodes[0])))

    def named(self, text: str) -> list[dict]:
        """The nodes whose own name holds ``text``."""
        return [node for node in self.nodes if text in self.name(node)]

    def of_selector(self, selector: str) -> dict | None:
        """The tree's node for the page's element matching ``selector`` (None: the element has no node)."""
        root = self.cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node_id = self.cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        backend = self.cdp.send("DOM.describeNode", {"nodeId": node_id})["node"]["backendNodeId"]
        return self.by_dom.get(backend)


@pytest.mark.parametrize("engine", sorted(PLAYERS))
def test_the_secret_is_said_politely_on_its_phone_alone_and_the_boards_marks_have_words(browser, server, engine):
    players = PLAYERS[engine]
    table = finished_table(engine, players, seed=SEEDS.get(engine, players), until=DURING[engine])
    assert not table.games.get().over
    phone, board = open_screens(browser, server, table)
    try:
        phone.wait_for_selector("[data-secret-summary]", state="attached", timeout=15000)
        secret = words(phone.text_content("[data-secret-summary]"))
        assert secret

        # The phone: one polite live region, and its words are the secret (the whole of it).
        tree = Tree(phone)
        summary = tree.of_selector("[data-secret-summary]")
        assert summary is not None and not summary.get("ignored"), summary
        assert tree.prop(summary, "live") == "polite", summary.get("properties")
        assert tree.prop(summary, "atomic") is True, summary.get("properties")
        assert tree.said(summary) == secret, (tree.said(summary), secret)
        saying = [node for node in tree.live_regions("polite") if secret in tree.said(node)]
        assert [node.get("backendDOMNodeId") for node in saying] == [summary.get("backendDOMNodeId")]
        assert tree.live_regions("assertive") == []  # never interrupting

        # The board: nothing says the secret, neither a name nor a live region.
        shown = Tree(board)
        assert shown.named(secret) == [], engine
        assert [node for node in shown.live_regions("polite") if secret in shown.said(node)] == []
        assert secret not in shown.everything(), engine
        assert secret in tree.everything()  # (the phone's whole tree does say it: the check can see it)

        # The board's public marks, each with words for a screen reader.
        counted = marks_with_words(board, engine)
        assert counted, f"{engine}: no coloured mark on the board during play to check"
        print(f"{engine}: the phone says {secret!r}; {counted} marks on the board have words")
    except Exception:
        ARTIFACTS.mkdir(exist_ok=True)
        save_screenshots([phone, board], f"screen-reader-{engine}-failure")
        raise
    finally:
        phone.context.close()
        board.context.close()

    # At the end, every card face up on the board (the most marks it ever shows): each with words too.
    phone, board = open_screens(browser, server, finished_table(engine, players, seed=players + 1))
    try:
        counted = marks_with_words(board, engine)  # (none on Good Cop Bad Cop Health's: no identity shown there)
        print(f"{engine}: {counted} marks on the finished game's board have words")
    except Exception:
        save_screenshots([board], f"screen-reader-{engine}-over-failure")
        raise
    finally:
        phone.context.close()
        board.context.close()


def marks_with_words(board, engine: str) -> int:
    """Every coloured mark shown on ``board`` is given words by its accessibility tree (a letter at least, not a bare
    number or symbol): how many there are."""
    marks = board.evaluate(TAG_MARKS, FAMILIES)
    tree = Tree(board)  # again: the marks are tagged now (the tree of the page as it is)
    silent = []
    for index, mark in enumerate(marks):
        node = tree.of_selector(f'[data-e2e-mark="{index}"]')
        said = tree.said(node) if node is not None else ""
        if not re.search(r"[^\W\d_]", said):
            silent.append({**mark, "said": said})
    assert silent == [], silent
    return len(marks)
