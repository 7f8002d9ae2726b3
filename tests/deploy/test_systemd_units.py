"""The shipped systemd units pass ``systemd-analyze verify`` and start what the command line accepts."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser

UNITS = Path(__file__).resolve().parents[2] / "deploy" / "systemd"
INSTALLED = "/opt/dealer-assist/.venv/bin/dealer-assist"
# The test's own environment stands in for the install (verify checks that ExecStart is executable).
HERE = str(Path(sys.executable).with_name("dealer-assist"))


def verify(folder: Path, *names: str) -> subprocess.CompletedProcess[str]:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: ./run test installs Debian's systemd package"
    return subprocess.run(
        [analyze, "verify", *(str(folder / n) for n in names)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=folder,
    )


def installed_copy(tmp_path: Path) -> Path:
    for unit in UNITS.glob("*.service"):
        (tmp_path / unit.name).write_text(unit.read_text().replace(INSTALLED, HERE))
    return tmp_path


def unit_settings(text: str) -> dict[str, str]:
    """The unit's key = value lines, continuation lines joined (last value of a key wins)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return dict(line.split("=", 1) for line in joined.splitlines() if "=" in line and not line.lstrip().startswith("#"))


def test_every_shipped_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    names = sorted(u.name for u in UNITS.glob("*.service"))
    assert names == ["dealer-assist-floor.service", "dealer-assist-kiosk.service", "dealer-assist-table.service"]
    done = verify(installed_copy(tmp_path), *names)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_the_verification_catches_a_broken_unit(tmp_path: Path) -> None:
    folder = installed_copy(tmp_path)
    broken = folder / "dealer-assist-table.service"
    broken.write_text(broken.read_text().replace("Type=notify", "Type=notfy").replace("[Service]", "[Servce]"))
    done = verify(folder, broken.name)
    assert done.returncode != 0 or done.stderr.strip()


@pytest.mark.parametrize("name", ["dealer-assist-table.service", "dealer-assist-floor.service"])
def test_services_restart_on_failure_under_a_watchdog_and_say_when_ready(name: str) -> None:
    settings = unit_settings((UNITS / name).read_text())
    assert settings["Type"] == "notify" and settings["NotifyAccess"] == "main"
    assert settings["Restart"] == "on-failure" and int(settings["WatchdogSec"]) > 0
    assert settings["User"] == "dealer-assist" and settings["NoNewPrivileges"] == "yes"
    assert settings["ProtectSystem"] == "strict"


def test_the_table_units_command_line_is_one_the_cli_accepts() -> None:
    settings = unit_settings((UNITS / "dealer-assist-table.service").read_text())
    argv = shlex.split(settings["ExecStart"].replace("${DEALER_ASSIST_SHOE}", "/dev/ttyUSB0"))
    assert argv[0] == INSTALLED
    parser, _ = build_parser()
    args = parser.parse_args(argv[1:])
    assert args.command == "run" and args.shoe == "/dev/ttyUSB0"
    assert args.tls_cert and args.tls_key and args.host == "0.0.0.0" and args.port == 443
    assert str(args.data) == "/var/lib/dealer-assist" and settings["StateDirectory"] == "dealer-assist"


def test_the_kiosk_opens_the_dealer_display_in_chromium_with_a_kept_profile() -> None:
    settings = unit_settings((UNITS / "dealer-assist-kiosk.service").read_text())
    argv = shlex.split(settings["ExecStart"])
    assert argv[0] == "/usr/bin/chromium" and "--kiosk" in argv
    assert any(a.startswith("--user-data-dir=") for a in argv) and argv[-1] == "${DEALER_ASSIST_URL}"
    assert settings["Restart"] == "always"
