"""The ecosystem's own checkers on every registered env id: Gymnasium's ``check_env`` on
the single-agent face, and PettingZoo's ``api_test``, ``seed_test`` and ``render_test``
on the AEC env as ``pettingzoo.make`` builds it. Each id's defaults are checked, the
way a user meets them first; boardzoo's one illegal-action rule (a forbidden move loses,
with a warning) is what lets a checker that samples actions blindly play on."""

from __future__ import annotations

import contextlib
import io
import warnings

import gymnasium
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test
from pettingzoo_checks import check_api, check_seed

import boardzoo  # noqa: F401  (registers the envs)
from boardzoo.envs import ENVS, pettingzoo_id
from boardzoo.errors import BoardzooWarning

IDS = [pettingzoo_id(name) for name in ENVS]


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasiums_env_checker_passes_with_no_remark(env_id):
    """``check_env`` steps with actions sampled from the action space: an illegal one ends
    the episode with -1 and boardzoo's warning, never an exception; Gymnasium itself has
    nothing to remark (render modes and frame rate declared, spaces and seeding right)."""
    with warnings.catch_warnings():  # Gymnasium says once that cantris-v1 is newer than v0: it is meant so
        warnings.filterwarnings("ignore", message=".*is out of date", category=DeprecationWarning)
        env = gymnasium.make(env_id)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    remarks = [str(w.message) for w in caught
               if not (issubclass(w.category, BoardzooWarning) and "and loses" in str(w.message))]
    assert remarks == []


@pytest.mark.parametrize("env_id", IDS)
def test_pettingzoos_api_seed_and_render_tests_pass(env_id):
    check_api(pettingzoo.make("aec", env_id), num_cycles=200)
    check_seed(lambda: pettingzoo.make("aec", env_id), num_cycles=200)
    with contextlib.redirect_stdout(io.StringIO()):  # the "human" mode prints the board
        render_test(lambda render_mode=None: pettingzoo.make("aec", env_id, render_mode=render_mode))
