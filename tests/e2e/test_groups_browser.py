"""Creating a group in Chromium: the browser lands on the group's own page (its address), not on /groups/."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import PHONE

pytestmark = pytest.mark.e2e


def test_creating_a_group_lands_on_its_own_address(browser, server):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/signup/")
        page.fill('[name="username"]', "amy")
        page.fill('[name="password1"]', "a long enough pass 1")
        page.fill('[name="password2"]', "a long enough pass 1")
        page.click('[data-test="signup"]')
        page.goto(f"{server.url}/groups/")
        page.fill('[data-test="group-name"]', "Thursday crew")
        page.click('[data-test="group-create"]')
        page.wait_for_load_state()
        assert re.fullmatch(rf"{re.escape(server.url)}/groups/\d+/", page.url), page.url
        assert page.locator("h1").inner_text().startswith("Thursday crew")
        # A reload shows the group again, and never posts the form twice.
        page.reload()
        assert re.fullmatch(rf"{re.escape(server.url)}/groups/\d+/", page.url), page.url
    finally:
        context.close()
