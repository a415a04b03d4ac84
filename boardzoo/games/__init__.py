"""Game cores (layer 1): pure rules, each state object is its own search model."""

from boardzoo.games.cantris import CantrisState
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.knowledge import GameKnowledge, all_knowledge, knowledge_of, register
from boardzoo.games.model import CHANCE, TERMINAL, Capabilities, GameState
from boardzoo.games.nim import NimState

__all__ = ["CHANCE", "TERMINAL", "Capabilities", "CantrisState", "ConnectFourState", "GameKnowledge", "GameState",
           "NimState", "all_knowledge", "knowledge_of", "register"]


#: What ``known_names`` calls each kind of game knowledge, for messages.
_KINDS = {"rollout": "roll-out policy", "eval": "evaluator", "belief": "belief", "schedule": "iteration schedule"}


def known_names(kind: str) -> dict[str, list[str]]:
    """Every name of one kind of game knowledge a spec can choose, with the games that
    have it: ``kind`` is ``"rollout"`` (``mcts:rollout=``), ``"eval"`` (``alphabeta:eval=``,
    ``mcts:value=``), ``"belief"`` (``mcts:belief=``) or ``"schedule"`` (``mcts:schedule=``)."""
    if kind not in _KINDS:
        raise ValueError(f"unknown kind of game knowledge {kind!r}")
    found: dict[str, list[str]] = {}
    if kind == "rollout":
        found["random"] = ["every game"]
    elif kind == "eval":
        found["simple"] = ["every game"]
    for game, knowledge in all_knowledge().items():
        names = {"rollout": knowledge.rollout_names()[1:], "eval": list(knowledge.evaluators),
                 "belief": list(knowledge.beliefs), "schedule": list(knowledge.schedules)}[kind]
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
