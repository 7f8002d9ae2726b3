"""Throttling cannot be turned against staff: over real sockets from two (and many) source addresses.

127.0.0.2 guesses the dealer's and the supervisor's passwords as fast as it can while 127.0.0.3, the
table's own terminal, signs in: the attacker is slowed, the staff are not.
"""

from __future__ import annotations

from pathlib import Path

import httpx2

from tests.web_display.kit import PASSWORD, live_server, make_app, make_table

NAMES = ("dealer", "supervisor")


def client(url: str, address: str) -> httpx2.Client:
    return httpx2.Client(base_url=url, transport=httpx2.HTTPTransport(local_address=address), timeout=60)


def sign_in(web: httpx2.Client, name: str, password: str = PASSWORD) -> httpx2.Response:
    return web.post("/api/login", json={"name": name, "password": password})


def test_an_attacker_on_one_address_cannot_keep_the_dealer_or_supervisor_out(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    # A first delay long enough that nothing here depends on how fast the machine is.
    with live_server(make_app(tmp_path, {"T1": table}, login_first_delay=60)) as server:
        attacker, terminal = client(server.url, "127.0.0.2"), client(server.url, "127.0.0.3")
        with attacker, terminal:
            # As fast as it can, on both staff names (the old lock-out locked both names out here).
            answers = [sign_in(attacker, name, "guess-123456").status_code for _ in range(30) for name in NAMES]
            assert answers == [401] * 5 + [429] * 55, answers
            # Meanwhile, and at once, the real staff sign in from the table's terminal.
            assert sign_in(terminal, "dealer").status_code == 200
            terminal.cookies.clear()
            assert sign_in(terminal, "supervisor").status_code == 200
            # Even the right password from the attacker's address waits out the delay: no free guesses.
            assert sign_in(attacker, "dealer").status_code == 429
            attacker.cookies.clear()
            rows = sign_in(terminal, "admin")
            assert rows.status_code == 200
            audit = terminal.get("/api/audit", params={"last": 1000}).json()
    failed = [e for e in audit if e["action"] == "login-failed"]
    # Aggregated: one row for the burst's first failure (its summary follows when the burst ends).
    assert len(failed) <= 2, failed
    assert failed[0]["detail"] == "from 127.0.0.2"


def test_guessing_from_many_addresses_slows_the_name_but_not_the_supervisors_own_browser(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table}, account_free_failures=10, login_first_delay=60)) as server:
        supervisor = client(server.url, "127.0.0.3")
        with supervisor:
            assert sign_in(supervisor, "supervisor").status_code == 200  # the browser is now trusted
            answers = []
            for i in range(12):  # two guesses from each of twelve addresses: too few to slow any address
                with client(server.url, f"127.0.1.{i + 1}") as bot:
                    answers += [sign_in(bot, "supervisor", f"guess-{i}-{j}").status_code for j in range(2)]
            # ... but the name is slowed after its free failures, for browsers it never signed in from.
            assert answers == [401] * 10 + [429] * 14, answers
            with client(server.url, "127.0.0.4") as stranger:
                slowed = sign_in(stranger, "supervisor")  # a browser never signed in as supervisor waits
                assert slowed.status_code == 429 and int(slowed.headers["retry-after"]) >= 1
            assert sign_in(supervisor, "supervisor").status_code == 200  # its own browser does not
