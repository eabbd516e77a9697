"""What a phone lying face-up on the table shows: its text outside the hold-to-peek boxes.

The secrets of a phone's own seat render inside ``.peek-secret`` elements (shown only while held,
static/js/phone.js); the equipment to play sits in closed ``<details>`` folds (only their summary
shows). Everything else is on show. Tests compare that shown text between deals that differ only in
the seat's own secrets: if it never changes, the phone tells nothing.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Tokens that differ between two renders of the same screen.
TOKENS = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), "CSRF"),
    (re.compile(r'name="move_id" value="[^"]*"'), "MOVEID"),
    (re.compile(r'"X-CSRFToken": "[^"]*"'), "CSRF"),
    (re.compile(r'data-server-now="\d+"'), "NOW"),
]


def normalized(html: str) -> str:
    """``html`` with the tokens that differ between two renders of the same screen replaced."""
    for pattern, placeholder in TOKENS:
        html = pattern.sub(placeholder, html)
    return html


class ShownParser(HTMLParser):
    """Splits a page's text into what is on show and what lies face-down (peek secrets, closed folds)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, what it is: "secret", "fold", "summary" or "")
        self.shown: list[str] = []
        self.face_down: list[str] = []
        self.classes_shown: list[str] = []  # the classes of elements on show (a class may colour a card)

    def _hidden_now(self) -> bool:
        """Inside a peek secret, or inside a closed fold but not in its summary."""
        for i, (_tag, kind) in enumerate(self.stack):
            if kind == "secret":
                return True
            if kind == "fold" and not any(k == "summary" for _t, k in self.stack[i + 1:]):
                return True
        return False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        kind = ""
        if "peek-secret" in classes or "data-secret-summary" in a:  # the latter: words for a screen reader alone
            kind = "secret"
        elif tag == "details" and "open" not in a:
            kind = "fold"
        elif tag == "summary":
            kind = "summary"
        self.stack.append((tag, kind))
        if not self._hidden_now():
            self.classes_shown.extend(classes)
        if tag in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _kind = self.stack.pop()
            if open_tag == tag:
                break

    def handle_data(self, data):
        (self.face_down if self._hidden_now() else self.shown).append(data)


def parse(html: str) -> ShownParser:
    parser = ShownParser()
    parser.feed(html)
    parser.close()
    return parser


def shown_text(html: str) -> str:
    """The words a phone shows without being held (whitespace folded)."""
    return re.sub(r"\s+", " ", " ".join(parse(normalized(html)).shown)).strip()


def face_down_text(html: str) -> str:
    """The words that show only while held (or in an opened fold)."""
    return re.sub(r"\s+", " ", " ".join(parse(html).face_down)).strip()
