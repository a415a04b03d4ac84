"""A player from a network trained by the hidden-information trainer (``boardzoo train
geister``): its own policy over the seat's information state, each move drawn from it.

    make("network")                                   # the network shipped for the game
    make("network:weights=runs/train-geister/weights/latest.npz")
    make("network:temperature=0.5")                   # sharper: nearer the most likely move

No search: one pass of the network a move, in NumPy (no extra needed), on what the seat
may know (the game's ``network_input`` of its view: never a hidden colour). The move is
drawn from the policy, with the agent's seeded generator, because a game of hidden
information asks for a mixed strategy: a player that always makes its likeliest move
tells the opponent what its ghosts are. ``temperature`` reshapes the policy (its
probabilities to the power 1/T; 0 plays the likeliest move), except at a secret choice
(the placement), always drawn from the policy as it is. ``stats`` holds the
network's value of the position and the move's probability.
"""

from __future__ import annotations

import time

import numpy as np

from boardzoo.agents.alphazero.evaluator import check_fits, load_network, one_blas_thread, shipped_path
from boardzoo.agents.alphazero.network import Network, move_probabilities
from boardzoo.agents.base import Agent, drawn_secret
from boardzoo.games.model import GameState
from boardzoo.games.registry import game as declared_game
from boardzoo.games.registry import games
from boardzoo.values import number

#: Networks shipped for this agent: game -> file (in the folder of every shipped network).
SHIPPED = {name: each.learning.shipped for name, each in games().items()
           if each.learning is not None and each.learning.trainer == "hidden"}


class NetworkBelief:
    """A belief read from a network's belief head, in the form the determinizing searches
    take (``f(view, unknown) -> odds``; MCTS's ``belief=network``): what the head guesses,
    from the seat's information state alone, of the pieces the seat cannot see. The head
    learned the true colours as a training target; its guess reads nothing hidden."""

    def __init__(self, network: Network, game_name: str):
        learning = declared_game(game_name).learning
        if learning is None or learning.belief_odds is None:
            raise ValueError(f"belief=network: {game_name} has no network belief a search can read")
        if not network.architecture.get("belief"):
            raise ValueError("belief=network: the network has no belief head (train it with boardzoo train "
                             f"{game_name})")
        self.network, self.game_name, self.odds = network, game_name, learning.belief_odds

    @classmethod
    def for_model(cls, model: GameState, network: Network | None = None) -> NetworkBelief:
        """The belief of ``network``, or of the network shipped for ``model``'s game; checked
        against ``model``'s game."""
        network = network if network is not None \
            else load_network(shipped_path(model.game_name, "belief=network", SHIPPED, option="model"))
        check_fits("belief=network", network, model)
        return cls(network, model.game_name)

    def __call__(self, view: GameState, unknown: list[int]) -> list[float]:
        if view.current_player() != getattr(view, "seat", view.current_player()):
            raise ValueError("belief=network reads a seat's view at its own turn (the network's input is the mover's)")
        write_input = declared_game(self.game_name).network_input
        assert write_input is not None  # every game with a network belief declares one
        with one_blas_thread():
            logits = self.network.belief(write_input(view, 0)[None])[0]
        return self.odds(view, unknown, logits)


class NetworkAgent(Agent):
    name = "network"
    summary = ("a network trained by self-play over a seat's information state (boardzoo train geister) playing "
               "its own policy, each move drawn from it: no search, NumPy only")
    games = frozenset(SHIPPED)
    default_notes = {"weights": "the network shipped for the game"}

    def __init__(self, seed: int | None = None, weights: str | None = None, temperature: float = 1.0):
        super().__init__(seed)
        self.temperature = number("network: temperature", temperature, 0.0, 100.0)
        self.weights = weights
        self.network = None if weights is None else load_network(weights)

    def network_for(self, model: GameState) -> Network:
        if self.network is not None:
            return self.network
        return load_network(shipped_path(model.game_name, "network", SHIPPED))

    def check(self, model: GameState) -> None:
        super().check(model)
        check_fits("network", self.network_for(model), model)

    def act(self, observation: dict, model: GameState) -> int:
        if model.current_player() < 0:
            raise ValueError("network: asked to move in a finished game or at a chance event")
        start = time.perf_counter()
        network = self.network_for(model)
        write_input = declared_game(model.game_name).network_input
        assert write_input is not None  # every game this agent plays declares one
        inputs = write_input(model, 0)[None]
        with one_blas_thread():
            logits, values = network(inputs)
        legal = model.legal_actions()
        probabilities = move_probabilities(logits[0], legal)
        secret = drawn_secret(model, self.rng, list(zip(legal, probabilities.tolist())))
        if secret is not None:  # the policy's own mix, whatever the temperature
            choice = list(legal).index(secret)
        elif self.temperature == 0:
            choice = int(np.argmax(probabilities))
        else:
            weights = probabilities ** (1.0 / self.temperature)
            choice = self.rng.choices(range(len(legal)), weights=(weights / weights.sum()).tolist())[0]
        self.stats = {"value": float(values[0]), "probability": round(float(probabilities[choice]), 4),
                      "seconds": time.perf_counter() - start}
        return int(legal[choice])
