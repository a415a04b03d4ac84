"""Root sampling: where each iteration starts, and what moves a node offers it.

* :class:`PositionRoot` — perfect information: every iteration starts from a copy of the
  position, and a node offers all its moves.
* :class:`DeterminizedRoot` — hidden information (a seat's information set): every
  iteration starts from a full state sampled under a *belief*, and the tree is one tree
  over moves shared by all samples (single-observer information-set MCTS): a node offers
  only the moves legal in this iteration's sample, and a move legal only in some samples
  gets its child when a sample first allows it.
* :class:`OpenChanceRoot` — perfect information with chance events kept out of the tree
  (``chance=open``): an iteration draws each outcome on its way down and plays on, so a
  node stands for a sequence of moves whatever outcomes came between them, and offers
  the moves this iteration's state allows, as a determinized tree's nodes do. Source
  000's MCTS for Nim with a coin works so; ``chance=tree`` (the default) gives every
  outcome its node.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable

from boardzoo.agents.mcts.evaluation import rollout_function
from boardzoo.agents.mcts.tree import Node
from boardzoo.games.model import GameState
from boardzoo.strategy.knowledge import all_knowledge, check_known, knowledge_of

#: A belief: ``f(view, unknown) -> odds`` of the hidden pieces (a game's, or a network's).
Belief = Callable[[GameState, list[int]], list[float]]
#: The belief read from a network's belief head (the agent builds it before play).
NETWORK_BELIEF = "network"


class ReadAgain:
    """``belief`` (every colouring alike when None) read again by one of the game's
    ``read(view, unknown, odds) -> odds``: its threats the worse way (``threats=worse``),
    its captures more cautiously than believed (``captures=cautious / wary``)."""

    def __init__(self, belief: Belief | None, read: Callable[[GameState, list[int], list[float]], list[float]]):
        self.belief, self.read = belief, read

    def __call__(self, view: GameState, unknown: list[int]) -> list[float]:
        return self.read(view, unknown, (self.belief or uniform_odds)(view, unknown))


#: ``match=``: each game read alone, or the belief weighed over a match against the
#: game's own model of the opponent.
MATCH_READINGS = ("none", "learn", "learn-in-game", "learn-calibrated", "learn-tells")


def uniform_odds(view: GameState, unknown: list[int]) -> list[float]:
    """Every colouring alike: the belief of a search given none."""
    return [1.0] * len(unknown)


class PositionRoot:
    """Perfect information: the position itself. Its nodes answer for themselves (their
    ``untried`` moves and all their children), which the search loop reads directly."""

    shared = False
    open_chance = False

    def __init__(self, model: GameState):
        self.model = model

    def sample(self) -> GameState:
        return self.model.clone()

    def key(self, state: GameState) -> Hashable:
        return state.key()


class DeterminizedRoot:
    """Hidden information: a full state drawn under ``belief`` (the name of one of the
    game's beliefs, or a belief itself, such as a network's; every consistent state alike
    when None) for every iteration."""

    shared = True  # one tree shared by many samples: nodes ask each sample what it allows
    open_chance = False

    def __init__(self, model: GameState, rng: random.Random, belief: str | Belief | None):
        self.model, self.rng = model, rng
        self.belief = knowledge_of(model).beliefs[belief] if isinstance(belief, str) else belief
        self.seat = model.current_player()

    def sample(self) -> GameState:
        return self.model.determinize(self.rng, self.belief)

    @staticmethod
    def new_action(node: Node, state: GameState, rng: random.Random) -> int | None:
        have = {child.action for child in node.children}  # type: ignore[union-attr]
        new = [action for action in state.legal_actions() if action not in have]
        return new[int(rng.random() * len(new))] if new else None

    @staticmethod
    def candidates(node: Node, state: GameState) -> list[Node]:
        """The children whose moves this sample allows."""
        return [child for child in node.children if state.is_legal(child.action)]  # type: ignore[union-attr]

    def key(self, state: GameState) -> Hashable:
        """What the seat knows of a sampled state: comparable with its view's key()."""
        return state.view_key(self.seat)


class OpenChanceRoot(PositionRoot):
    """Perfect information, chance outcomes drawn on the way down and not kept (module
    docstring): one tree over moves shared by every run of outcomes."""

    shared = True
    open_chance = True
    new_action = staticmethod(DeterminizedRoot.new_action)
    candidates = staticmethod(DeterminizedRoot.candidates)


#: The ``chance=`` settings of the search: outcomes as nodes, or drawn and not kept.
CHANCE_TREES = ("tree", "open")


def root_sampling(model: GameState, rng: random.Random, belief: str | Belief | None,
                  chance: str = "tree") -> PositionRoot | DeterminizedRoot:
    if model.capabilities.hidden_information:
        return DeterminizedRoot(model, rng, belief)
    return OpenChanceRoot(model) if chance == "open" else PositionRoot(model)


def sampler(model: GameState, rng: random.Random, belief: str | None) -> Callable[[], GameState]:
    """A function drawing the states an evaluation starts from: copies of the position,
    or full states consistent with an information set under ``belief``."""
    return root_sampling(model, rng, belief).sample


def games_with(part: str) -> list[str]:
    """The games whose knowledge has ``part`` (a field of :class:`GameKnowledge`)."""
    return [game for game, knowledge in all_knowledge().items() if getattr(knowledge, part)]


def check_game_options(agent: str, rollout: str, belief: str | None) -> None:
    """At construction: names that no game has are refused at once (``network``, a
    network's belief, is checked against the game before play)."""
    check_known(agent, "rollout", rollout)
    if belief is not None and belief != NETWORK_BELIEF:
        check_known(agent, "belief", belief)


def check_model_options(agent: str, model: GameState, rollout: str, belief: str | None,
                        threats: str = "as-believed", match: str = "none", captures: str = "as-believed") -> None:
    """Before play: the roll-out policy and belief must be the game's own, and so must
    a reading of threats, a reading of captures and a model of the
    opponent to weigh over a match."""
    rollout_function(model, rollout, None)  # raises ValueError naming the game's policies
    for option, name, readings in (("threats", threats, "threat_readings"), ("captures", captures, "capture_readings")):
        if name != "as-believed" and name not in getattr(knowledge_of(model), readings):
            raise ValueError(f"{agent}: {model.game_name} has no {name} reading of {option}; {option}={name} is for "
                             f"games that name one ({', '.join(games_with(readings)) or 'none'})")
    if match != "none" and knowledge_of(model).match_reading is None:
        raise ValueError(f"{agent}: {model.game_name} has no model of an opponent to learn over a match; match={match} "
                         f"is for games that have one ({', '.join(games_with('match_reading')) or 'none'})")
    if belief is None:
        return
    if not model.capabilities.hidden_information:
        raise ValueError(f"{agent}: belief={belief} is for games with hidden information; "
                         f"{model.game_name} has none")
    if belief == NETWORK_BELIEF:
        return  # the agent reads the network (NetworkBelief.for_model checks it against the game)
    beliefs = knowledge_of(model).beliefs
    if belief not in beliefs:
        raise ValueError(f"{agent}: {model.game_name} has no belief {belief!r}; beliefs are: {', '.join(beliefs)}")
    # A belief that reads only some positions of its game says why it cannot read this one.
    problem = getattr(beliefs[belief], "refuses", lambda model: None)(model)
    if problem is not None:
        raise ValueError(f"{agent}: belief={belief}: {problem}")
