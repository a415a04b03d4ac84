"""Shared test settings: hypothesis runs without deadlines (CI machines vary in speed);
``load_example`` loads a script of ``examples/`` as a module, so its ``main`` can run."""

import importlib.util
import pathlib
import sys

import pytest
from hypothesis import settings

settings.register_profile("boardzoo", deadline=None, max_examples=60)
settings.load_profile("boardzoo")

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"


@pytest.fixture
def load_example():
    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    return load
