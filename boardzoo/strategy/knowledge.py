"""Game knowledge: what each game lends the generic agents, registered in one place per game.

The rules of a game live in its core class; what a *player* knows about the game — its
greedy rule, roll-out policies, leaf evaluators, beliefs about hidden information — is
not part of the rules. Each game's module here (the one its ``Game`` names as
``knowledge``) ends with one :func:`register` call that names all of it, so the whole of
a game's knowledge is visible in one place, and agents look it up with
:func:`knowledge_of` (which imports that module on first use) instead of probing the
state object for attributes.

    register(GameKnowledge(
        game="connect_four",
        greedy=ConnectFourState.greedy_action,          # f(state, rng) -> action
        rollouts={},                                    # name -> f(state, rng) -> action
        fast_rollouts={},                               # name -> f(state, rng, limit) -> returns
        evaluators={"three": three_in_window_score},    # name -> f(state, player, max_depth) -> score
        beliefs={},                                     # name -> f(view, unknown) -> weights
        searcher_only=frozenset(),                      # roll-outs steering the searcher's moves only
        schedules={},                                   # name -> f(state) -> iterations
        solve_moves=None,                               # f(state, seconds, engine) -> {action: value}
        adjudicators={},                                # name -> f(state) -> returns or None
        guards={},                                      # name -> f(model) -> the moves a root may play
        threat_readings={"worse": f},                   # name -> f(view, unknown, odds) -> odds
        capture_readings={"cautious": f},               # f(view, unknown, odds) -> odds
        match_reading=None,                             # f(belief) -> belief that learns a match
    ))

A new game gets every generic agent with no registration at all (random, minimax,
alpha-beta with ``eval=simple``, MCTS with random roll-outs); registering knowledge adds
``greedy``, ``mcts:rollout=NAME``, ``alphabeta:eval=NAME``, ``mcts:value=NAME``,
``mcts:belief=NAME``, ``mcts:adjudicate=NAME``, ``mcts:guard=NAME``, ``mcts:threats=worse``,
``mcts:captures=cautious`` and ``mcts:match=learn`` for it.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from boardzoo.games.registry import games

if TYPE_CHECKING:
    from boardzoo.games.model import GameState

#: ``f(state, rng) -> action``: one move of a roll-out policy or of a greedy rule.
MovePolicy = Callable[[Any, random.Random], int]
#: ``f(state, rng, limit) -> returns``: a whole roll-out in one tight loop.
FastRollout = Callable[[Any, random.Random, int], tuple[float, float]]
#: ``f(state, player, max_depth) -> score for player``: minimax/alpha-beta's leaf evaluator.
Heuristic = Callable[[Any, int, int], float]


@dataclass(frozen=True)
class GameKnowledge:
    """Everything one game lends the generic agents; every field but ``game`` optional."""

    game: str
    greedy: MovePolicy | None = None
    rollouts: Mapping[str, MovePolicy] = field(default_factory=dict)
    fast_rollouts: Mapping[str, FastRollout] = field(default_factory=dict)
    evaluators: Mapping[str, Heuristic] = field(default_factory=dict)
    beliefs: Mapping[str, Callable] = field(default_factory=dict)
    #: Roll-out policies that model the searching player only: in a roll-out they choose
    #: the moves of the player whose search it is, and the opponent's moves stay uniformly
    #: random (the Nim study's strategic play-out).
    searcher_only: frozenset[str] = frozenset()
    #: Named iteration budgets, ``f(state) -> iterations`` for a decision at ``state``
    #: (``mcts:schedule=NAME``): a study's own play-out counts, which vary along a game.
    schedules: Mapping[str, Callable[[Any], int]] = field(default_factory=dict)
    #: An exact solver for the ``solver`` agent: ``f(state, seconds, engine) -> {action:
    #: value}`` with each legal move's game-theoretic value for the player to move (higher
    #: is better), raising :class:`~boardzoo.errors.BudgetError` when ``seconds`` run out;
    #: ``engine`` as :func:`boardzoo.strategy.engine.choose_engine` reads it.
    solve_moves: Callable[[Any, float, str], dict[int, int]] | None = None
    #: Why that solver cannot take ``state``'s board (too large for it), or None.
    solver_refuses: Callable[[Any], str | None] = lambda state: None
    #: Results known beyond a search's horizon (``mcts:adjudicate=NAME``): ``f(state) ->
    #: returns`` of a position whose outcome is settled (Geister: a race to the exits that
    #: nothing can stop), None when it is not; a leaf it settles is scored so.
    adjudicators: Mapping[str, Callable[[Any], tuple[float, float] | None]] = field(default_factory=dict)
    #: Root move filters (``mcts:guard=NAME``): ``f(model) -> actions``, the moves the
    #: searching seat may play whatever the hidden information (Geister: none that lets a
    #: ghost of the opponent, read as blue, run free to an exit); every legal move when
    #: none passes. The search's choice is kept when it passes, else its best move that does.
    guards: Mapping[str, Callable[[Any], list[int]]] = field(default_factory=dict)
    #: By name, ``f(view, unknown, odds) -> odds``: a belief's odds of the hidden pieces
    #: with the opponent's threats read the worse way (``mcts:threats=NAME``), for a game
    #: in which a threat missed loses at once.
    threat_readings: Mapping[str, Callable[[Any, list[int], list[float]], list[float]]] = field(default_factory=dict)
    #: By name, ``f(view, unknown, odds) -> odds``: a belief's odds with the pieces we
    #: could take read more cautiously than believed (``mcts:captures=NAME``), for a game
    #: in which one capture can lose at once.
    capture_readings: Mapping[str, Callable[[Any, list[int], list[float]], list[float]]] = field(default_factory=dict)
    #: ``f(belief, within_game, calibrated, tells) -> reader``: ``belief`` (``f(view,
    #: unknown) -> odds``) beside the game's own models of an opponent, weighed over a match
    #: (``mcts:match=learn``); with ``within_game``, within each game too by the pieces
    #: shown (``mcts:match=learn-in-game``); with ``calibrated``, read again by what the
    #: match showed of it (``mcts:match=learn-calibrated``); with ``tells``, beside a reader
    #: of the opponent's tells fitted over the match (``mcts:match=learn-tells``). The
    #: reader is a belief too; ``reader.new_game()`` starts a game and
    #: ``reader.learn(final, seat)`` teaches it each finished game of a match
    #: (:meth:`~boardzoo.agents.base.Agent.end_of_game`); never taught and not within
    #: games, it reads as ``belief`` alone.
    match_reading: Callable[..., Any] | None = None

    def rollout_names(self) -> list[str]:
        return ["random", *[name for name in {**self.rollouts, **self.fast_rollouts} if name != "random"]]


_REGISTRY: dict[str, GameKnowledge] = {}


def register(knowledge: GameKnowledge) -> GameKnowledge:
    """Register a game's knowledge under ``knowledge.game`` (the cores' ``game_name``)."""
    if knowledge.game in _REGISTRY and _REGISTRY[knowledge.game] != knowledge:
        raise ValueError(f"game knowledge for {knowledge.game!r} is registered twice")
    _REGISTRY[knowledge.game] = knowledge
    return knowledge


def knowledge_of(model: GameState) -> GameKnowledge:
    """The knowledge registered for ``model``'s game, its knowledge module imported on
    first use (none declared: an empty one)."""
    found = _REGISTRY.get(model.game_name)
    if found is None:
        declared = games().get(model.game_name)
        if declared is not None and declared.knowledge:
            importlib.import_module(declared.knowledge)
        found = _REGISTRY.get(model.game_name)
    return found or GameKnowledge(model.game_name)


def all_knowledge() -> dict[str, GameKnowledge]:
    """Every registered game's knowledge, after importing each game's knowledge module."""
    for game in games().values():
        if game.knowledge:
            importlib.import_module(game.knowledge)
    return {name: _REGISTRY[name] for name in games() if name in _REGISTRY}


#: What ``known_names`` calls each kind of game knowledge, for messages.
_KINDS = {"rollout": "roll-out policy", "eval": "evaluator", "belief": "belief", "schedule": "iteration schedule",
          "adjudicator": "adjudicator", "guard": "guard", "threat": "reading of threats",
          "capture": "reading of captures"}


def known_names(kind: str) -> dict[str, list[str]]:
    """Every name of one kind of game knowledge a spec can choose, with the games that
    have it: ``kind`` is ``"rollout"`` (``mcts:rollout=``), ``"eval"`` (``alphabeta:eval=``,
    ``mcts:value=``), ``"belief"`` (``mcts:belief=``), ``"schedule"`` (``mcts:schedule=``),
    ``"adjudicator"`` (``mcts:adjudicate=``), ``"guard"`` (``mcts:guard=``), ``"threat"`` (``mcts:threats=``) or
    ``"capture"`` (``mcts:captures=``)."""
    if kind not in _KINDS:
        raise ValueError(f"unknown kind of game knowledge {kind!r}")
    found: dict[str, list[str]] = {}
    if kind == "rollout":
        found["random"] = ["every game"]
    elif kind == "eval":
        found["simple"] = ["every game"]
    elif kind in ("capture", "threat"):
        found["as-believed"] = ["every game"]
    for game, knowledge in all_knowledge().items():
        names = {"rollout": knowledge.rollout_names()[1:], "eval": list(knowledge.evaluators),
                 "belief": list(knowledge.beliefs), "schedule": list(knowledge.schedules),
                 "adjudicator": list(knowledge.adjudicators), "guard": list(knowledge.guards),
                 "threat": list(knowledge.threat_readings),
                 "capture": list(knowledge.capture_readings)}[kind]
        for name in names:
            found.setdefault(name, []).append(game)
    return found


def check_known(agent: str, kind: str, name: str) -> None:
    """Raise ValueError unless some game has knowledge ``name`` of ``kind`` (the check an
    agent makes at construction; whether *this* game has it is checked against its model)."""
    found = known_names(kind)
    if name not in found:
        listing = "; ".join(f"{key} ({', '.join(games)})" for key, games in found.items())
        raise ValueError(f"{agent}: unknown {_KINDS[kind]} {name!r}; there are: {listing}")
