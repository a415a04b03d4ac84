"""Shared test settings: hypothesis runs without deadlines (CI machines vary in speed);
``load_example`` loads a script of ``examples/`` as a module, so its ``main`` can run;
``terminated_run`` starts a command and stops it with SIGTERM partway through its file.

The tiers: a test that is slow by nature carries the marker of its kind (``training``,
``end_to_end``, ``statistical``, ``matrix``, ``compile``; a test that drives the browser
is ``browser`` by its fixture), and every such test is ``slow`` too, which the quick tier
(``pytest -n auto -m "not slow"``) leaves out. The whole suite runs them all."""

import importlib.util
import pathlib
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import settings

settings.register_profile("boardzoo", deadline=None, max_examples=60)
settings.load_profile("boardzoo")

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"
#: The kinds of slow test (pyproject.toml describes each); each is ``slow`` as well.
SLOW_KINDS = ("training", "end_to_end", "statistical", "matrix", "compile", "browser")


def pytest_collection_modifyitems(items):
    for item in items:
        if {"page", "browser"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        if any(item.get_closest_marker(kind) for kind in SLOW_KINDS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def load_example():
    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def terminated_run():
    """``run(command, lines, path, patience=120)``: start ``command``, send it SIGTERM once
    ``path`` has ``lines`` lines (or ``patience`` seconds have passed), and return its exit
    status and stderr."""

    def run(command: list[str], lines: int, path: pathlib.Path, patience: float = 120) -> tuple[int, str]:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + patience
        while not (path.exists() and path.read_text().count("\n") >= lines) and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        return process.returncode, err

    return run
