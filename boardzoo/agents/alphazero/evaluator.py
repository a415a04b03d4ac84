"""A network file as what a search needs of it: loaded once per process, checked against
the game it is asked to play, its input written from a position, and as an MCTS
evaluator (``mcts:policy=puct,model=FILE.npz``), so that the same network can be
searched by PUCT as well as by the ``alphazero`` agent's Gumbel search."""

from __future__ import annotations

import contextlib
import os
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from boardzoo.agents.alphazero.network import Network, move_probabilities
from boardzoo.agents.network_evaluator import NetworkEvaluator
from boardzoo.errors import SpecError
from boardzoo.games.model import GameState
from boardzoo.games.registry import game, games

#: Networks shipped with boardzoo for the ``alphazero`` agent: game -> file in this
#: package's ``weights`` folder (the folder of every shipped network).
SHIPPED = {name: game.learning.shipped for name, game in games().items()
           if game.learning is not None and game.learning.trainer == "alphazero"}
#: Every shipped network, by either trainer (what ``mcts:model=shipped`` reads).
SHIPPED_ANY = {name: game.learning.shipped for name, game in games().items() if game.learning is not None}


@lru_cache(maxsize=16)
def _load(path: str, changed: float) -> Network:
    """A network file read once per process (``changed``, its modification time, reads it
    again after the file is replaced)."""
    return Network.load(path)


def load_network(path: str) -> Network:
    try:
        changed = os.stat(path).st_mtime
    except OSError as error:
        raise ValueError(f"cannot read network file {path}: {error.strerror}") from None
    return _load(path, changed)


def shipped_path(game_name: str, where: str = "alphazero", shipped: dict[str, str] = SHIPPED,
                 option: str = "weights") -> str:
    """The path of the network shipped for ``game_name`` (of the ``shipped`` ones, which
    agent ``where`` plays, or else reads from the file its ``option`` names); ValueError
    when there is none."""
    if game_name not in shipped:
        raise ValueError(f"{where}: no network is shipped for {game_name} (networks are shipped for "
                         f"{', '.join(shipped)}); train one with boardzoo train and pass {option}=FILE")
    path = str(resources.files("boardzoo.agents.alphazero") / "weights" / shipped[game_name])
    if not os.path.exists(path):
        raise ValueError(f"{where}: the network for {game_name} is not shipped in this version yet; "
                         f"train one with boardzoo train and pass {option}=FILE")
    return path


@lru_cache(maxsize=1)
def _blas_pools() -> Any:
    """The process's BLAS thread pools, found once (finding them walks every loaded library)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which NumPy's BLAS runs on one thread: one position at a time, the
    network's matrices are small, and BLAS threads only wait on each other (five times
    slower on a busy two-core machine). Without threadpoolctl (the ``fast`` extra's) BLAS
    is left as it is."""
    try:
        return _blas_pools().limit(limits=1, user_api="blas")
    except ImportError:
        return contextlib.nullcontext()


def check_fits(where: str, network: Network, model: GameState) -> None:
    """ValueError, before play, when ``network`` was not trained for the game of ``model``
    (another game, board size, k), or the game has chance events."""
    if getattr(model, "coin", False):
        raise ValueError(f"{where}: the network plays games without chance events, not Nim with the coin")
    trained = network.about.get("game")
    if trained not in (None, model.game_name):
        raise ValueError(f"{where}: the network was trained for {trained}, not {model.game_name}")
    try:
        expected = game(model.game_name).input_shape(model, network.input_shape[0] - 1)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if expected != network.input_shape or model.num_actions != network.num_actions:
        raise ValueError(f"{where}: the network was trained for {model.game_name} with input "
                         f"{network.input_shape} and {network.num_actions} actions; this game has input "
                         f"{expected} and {model.num_actions} actions (another board size or k)")


def check_position(where: str, network: Network, model: GameState, fitted: set | None = None) -> np.ndarray:
    """``model``'s compiled array, once it is sure the network fits it (:func:`check_fits`,
    and Nim's pile within the network's largest): the compiled code writes the network's
    input without bounds checks, so nothing reaches it that does not fit. ``fitted``, kept
    by a caller that asks about many positions of one game (a search), remembers the
    games found to fit (by their kernels, actions and chance), so that each is checked
    once: checking writes a whole input in Python."""
    from boardzoo.fast.core import kernels_for

    kernels = kernels_for(model)  # the kernels of the family member played
    state = kernels.core.encode(model)
    known = (id(kernels), model.num_actions, bool(getattr(model, "coin", False)))
    if fitted is None or known not in fitted:
        check_fits(where, network, model)
        if fitted is not None:
            fitted.add(known)
    if model.game_name == "nim" and state[0] >= network.input_shape[0]:
        # the game's fault, not a bug: the arena and the servers report it in one line
        raise SpecError(f"{where}: the network knows piles up to {network.input_shape[0] - 1}, not {state[0]} "
                        f"(play piles up to {network.input_shape[0] - 1}, or train a network on larger ones)")
    return state


def network_input(where: str, network: Network, model: GameState, fitted: set | None = None) -> np.ndarray:
    """The network's input (1, *input shape) for position ``model`` (``fitted``: as
    :func:`check_position`'s)."""
    from boardzoo.fast.core import kernels_for

    state = check_position(where, network, model, fitted)
    inputs = np.zeros(int(np.prod(network.input_shape)), dtype=np.float32)
    kernels_for(model).core.write_input(state, inputs)
    return inputs.reshape(1, *network.input_shape)


class FileNetworkEvaluator(NetworkEvaluator):
    """A network file as an MCTS evaluator (``mcts:model=FILE.npz``): its policy head's
    move probabilities over the legal moves are the priors, its value head the leaf
    value of the player to move. ``mcts:model=shipped`` (``path`` None) reads the network
    shipped for the game it is checked against, by whichever trainer made it."""

    def __init__(self, path: str | None, cache: int = 50_000):
        super().__init__(cache)
        self.network: Network | None = None if path is None else load_network(path)
        self.fitted: set = set()  # the games this network was found to fit (check_position)

    def check(self, model: GameState) -> None:
        if self.network is None:
            self.network = load_network(shipped_path(model.game_name, "mcts: model=shipped", SHIPPED_ANY,
                                                     option="model"))
        check_fits("mcts", self.network, model)

    def answer(self, state: GameState) -> tuple[float, list[tuple[int, float]]]:
        network = self.network
        if network is None:
            raise ValueError("mcts: model=shipped names no network until the agent is checked against a game")
        with one_blas_thread():
            logits, values = network(network_input("mcts", network, state, self.fitted))
        legal = state.legal_actions()
        return float(values[0]), list(zip(legal, move_probabilities(logits[0], legal).tolist()))
