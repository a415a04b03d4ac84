"""Helpers of the fault-injection suite: run the command line as a user would, in
a process of its own, and read results files back."""

from __future__ import annotations

import json
import subprocess
import sys

#: ``python -m boardzoo.cli ...``: the command line in a fresh process.
CLI = [sys.executable, "-m", "boardzoo.cli"]


def run_cli(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, **kwargs)


def assert_clean_error(result: subprocess.CompletedProcess, *fragments: str, status: int = 2) -> None:
    """Exit ``status``, a short message naming ``fragments``, and no traceback."""
    assert result.returncode == status, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert len(result.stderr) < 2000, len(result.stderr)
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def records_of(path) -> list[dict]:
    """Every line of a results file, parsed (a torn line fails the test)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
