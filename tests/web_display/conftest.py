"""Shared browser fixtures: one Chromium per module, a fresh context per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.web_display.browser import chromium, new_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = new_page(browser)
    try:
        yield page
    finally:
        page.context.close()
