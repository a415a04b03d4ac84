"""PettingZoo's own conformance tests on every env and parameter combination."""

import pytest
from pettingzoo.test import api_test, seed_test

from boardzoo.envs import connect_four_v0, geister_v0, nim_v0

CONFIGS = [
    (connect_four_v0, {}),
    (connect_four_v0, {"rows": 4, "cols": 4}),
    (connect_four_v0, {"rows": 7, "cols": 9}),
    (nim_v0, {}),
    (nim_v0, {"n": 7, "k": 1}),
    (nim_v0, {"n": (1, 12), "k": 5}),
    (nim_v0, {"coin": True}),
    (nim_v0, {"n": (3, 9), "k": 2, "coin": True}),
    (geister_v0, {}),
    (geister_v0, {"max_turns": 20}),
]
IDS = [f"{module.__name__.rsplit('.', 1)[1]}-{kwargs}" for module, kwargs in CONFIGS]


@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("factory", ["env", "raw_env"])
def test_api(module, kwargs, factory):
    api_test(getattr(module, factory)(**kwargs), num_cycles=300)


@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
def test_seed(module, kwargs):
    seed_test(lambda: module.env(**kwargs), num_cycles=300)
