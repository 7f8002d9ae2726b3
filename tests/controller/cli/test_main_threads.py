"""The command line runs BLAS on one thread: the camera's per-frame products must not spin other cores."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_BLAS_THREADS = (
    "from threadpoolctl import threadpool_info; "
    "print(sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}))"
)


def _run(code: str) -> str:
    # Without the variable: importing controller.cli in this test process sets it for children.
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip().splitlines()[-1]


def test_a_command_leaves_blas_on_one_thread() -> None:
    if _run("import numpy; " + _BLAS_THREADS) == "[1]":
        pytest.skip("BLAS starts on one thread here (one core): nothing to limit, nothing proved")
    command = "from controller.cli import main; main(['config', 'show', '--game', 'oasis']); " + _BLAS_THREADS
    assert _run(command) == "[1]"
