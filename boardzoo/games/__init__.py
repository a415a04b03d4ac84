"""Game cores (layer 1): pure rules, each state object is its own search model."""

from boardzoo.games.cantris import CantrisState
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.model import CHANCE, TERMINAL, GameState
from boardzoo.games.nim import NimState

__all__ = ["CHANCE", "TERMINAL", "CantrisState", "ConnectFourState", "GameState", "NimState"]


#: What ``known_names`` calls each kind of game knowledge, for messages.
_KINDS = {"rollout": "roll-out policy", "eval": "evaluator", "belief": "belief"}


def known_names(kind: str) -> dict[str, list[str]]:
    """Every name of one kind of game knowledge a spec can choose, with the games that
    have it: ``kind`` is ``"rollout"`` (``mcts:rollout=``), ``"eval"`` (``alphabeta:eval=``)
    or ``"belief"`` (``mcts:belief=``)."""
    from boardzoo.games.geister import BELIEFS, GeisterState

    cores = (NimState, CantrisState, ConnectFourState, GeisterState)
    found: dict[str, list[str]] = {}
    if kind == "rollout":
        found["random"] = ["every game"]
        for core in cores:
            for name in {**core.rollout_policies, **getattr(core, "fast_rollouts", {})}:
                if name != "random":
                    found.setdefault(name, []).append(core.game_name)
    elif kind == "eval":
        found["simple"] = ["every game"]
        for core in cores:
            for name in core.evaluators:
                found.setdefault(name, []).append(core.game_name)
    elif kind == "belief":
        for name in BELIEFS:
            found[name] = [GeisterState.game_name]
    else:
        raise ValueError(f"unknown kind of game knowledge {kind!r}")
    return found


def check_known(agent: str, kind: str, name: str) -> None:
    """Raise ValueError unless some game has knowledge ``name`` of ``kind`` (the check an
    agent makes at construction; whether *this* game has it is checked against its model)."""
    found = known_names(kind)
    if name not in found:
        listing = "; ".join(f"{key} ({', '.join(games)})" for key, games in found.items())
        raise ValueError(f"{agent}: unknown {_KINDS[kind]} {name!r}; there are: {listing}")
