"""PettingZoo's own conformance checks (``api_test``, ``seed_test``), run the same way by
every env test: with boardzoo's expected warning asserted and PettingZoo's remarks on the
observation design silenced, so that a test run shows only warnings worth reading."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, seed_test

from boardzoo.errors import BoardzooWarning

#: What ``api_test`` remarks on every env whose observation is the dict
#: ``{"observation", "action_mask"}`` -- PettingZoo's own classic envs get the same -- and
#: on an empty starting board. Design choices, not faults.
DESIGN_REMARKS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    "Observation numpy array is all zeros",
)


def check_api(env, num_cycles: int, probes_reset_options: bool = True) -> None:
    """``api_test`` on ``env``. It resets with a made-up option ``{"options": 1}``, which a
    boardzoo env must name in a warning (unless the env's reset is overridden)."""
    with warnings.catch_warnings():
        for remark in DESIGN_REMARKS:
            warnings.filterwarnings("ignore", message=remark, category=UserWarning)
        if not probes_reset_options:
            api_test(env, num_cycles=num_cycles)
            return
        with pytest.warns(BoardzooWarning, match=r"ignoring unknown reset option\(s\) \['options'\]"):
            api_test(env, num_cycles=num_cycles)


def check_seed(factory, num_cycles: int) -> None:
    """``seed_test``: two envs from ``factory`` with the same seed play the same game."""
    with warnings.catch_warnings():
        for remark in DESIGN_REMARKS:
            warnings.filterwarnings("ignore", message=remark, category=UserWarning)
        seed_test(factory, num_cycles=num_cycles)
