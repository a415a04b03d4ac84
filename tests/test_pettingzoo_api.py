"""PettingZoo's own conformance tests on every env and parameter combination."""

import numpy as np
import pettingzoo
import pytest
from pettingzoo_checks import check_api, check_seed

import boardzoo  # noqa: F401  (registers the envs with PettingZoo)
from boardzoo.envs import ENVS, connect_four_v0, geister_v0, make, nim_v0, pettingzoo_id, register_with_pettingzoo
from boardzoo.games.registry import games

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
#: Every game's small envs, from the game registry: a new game is checked with no line here.
SMALL_ENVS = [spec for game in games().values() for spec in game.small_envs.values()]


@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("factory", ["env", "raw_env"])
def test_api(module, kwargs, factory):
    check_api(getattr(module, factory)(**kwargs), num_cycles=300)


@pytest.mark.parametrize("module, kwargs", CONFIGS, ids=IDS)
def test_seed(module, kwargs):
    check_seed(lambda: module.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("spec", SMALL_ENVS)
def test_api_and_seeding_of_every_games_small_env(spec):
    check_api(make(spec), num_cycles=300)
    check_api(make(spec, raw=True), num_cycles=300)
    check_seed(lambda: make(spec), num_cycles=300)


@pytest.mark.parametrize("name", list(ENVS))
def test_pettingzoo_registry_makes_every_env(name):
    """``import boardzoo`` registered the env: PettingZoo's own ``make`` builds it, passes
    keyword arguments through, and plays the same game as boardzoo's constructor."""
    env_id = pettingzoo_id(name)
    assert env_id == "boardzoo/" + name.rsplit("_v", 1)[0] + "-v" + name.rsplit("_v", 1)[1]
    kwargs = {"connect_four_v0": {"rows": 5}, "nim_v0": {"n": 9}, "geister_v0": {"max_turns": 30},
              "cantris_v0": {"board": "6x3"}, "cantris_v1": {"board": "6x3"}}.get(name, {})
    for made, ours in ((pettingzoo.make("aec", env_id), make(name)),
                       (pettingzoo.make("aec", env_id, **kwargs), make(name, **kwargs))):
        assert type(made.unwrapped) is type(ours.unwrapped)
        made.reset(seed=3)
        ours.reset(seed=3)
        for _ in range(4):  # the same game, move for move
            (obs_made, *_), (obs_ours, _, over, cut, _) = made.last(), ours.last()
            assert np.array_equal(obs_made["observation"], obs_ours["observation"])
            assert np.array_equal(obs_made["action_mask"], obs_ours["action_mask"])
            if over or cut:
                break
            action = int(np.flatnonzero(obs_ours["action_mask"])[-1])
            made.step(action)
            ours.step(action)

def test_registering_again_is_silent(recwarn):
    register_with_pettingzoo()
    assert not [w for w in recwarn if "Overriding" in str(w.message)]
