"""Agents (layer 3): generic players that see games only through the env API and the
search model. Build one from a spec string:

    from boardzoo.agents import make
    agent = make("greedy", seed=0)
    action = agent.act(observation, env.unwrapped.model(agent_name))
"""

from __future__ import annotations

from boardzoo.agents.base import Agent, legal_from_mask
from boardzoo.agents.flat_monte_carlo import FlatMonteCarloAgent
from boardzoo.agents.mcts import MCTSAgent
from boardzoo.agents.minimax import AlphaBetaAgent, MinimaxAgent
from boardzoo.agents.sb3 import SB3Agent
from boardzoo.agents.simple import GreedyAgent, HumanAgent, RandomAgent
from boardzoo.errors import SpecError
from boardzoo.spec import build, describe, split_spec

#: Registered agents: spec name -> class.
AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (RandomAgent, GreedyAgent, HumanAgent, MCTSAgent,
                                                            FlatMonteCarloAgent,
                                                   MinimaxAgent, AlphaBetaAgent, SB3Agent)}

#: Constructor parameters that a spec string can't meaningfully set (left out of listings).
SPEC_HIDDEN = ("seed", "stdin", "stdout", "evaluator")


def register(cls: type[Agent]) -> type[Agent]:
    """Add an agent class to the registry (usable as a decorator)."""
    AGENTS[cls.name] = cls
    return cls


def make(spec: str, seed: int | None = None, **overrides) -> Agent:
    """Build an agent from ``"name:key=value,..."``; unknown names/parameters raise SpecError."""
    name, raw = split_spec(spec)
    if name not in AGENTS:
        raise SpecError(f"unknown agent {name!r}; agents are: {', '.join(AGENTS)}")
    cls = AGENTS[name]
    kwargs = build(cls, name, raw, hidden=SPEC_HIDDEN, parts=cls.parts)
    try:
        agent = cls(seed=seed, **kwargs, **overrides)
    except ValueError as error:
        raise SpecError(f"{spec}: {error}") from error
    agent.spec = spec.strip()
    return agent


def catalogue() -> list[tuple[str, str, str]]:
    """(name, parameters with defaults, summary) of every agent, for listings."""
    return [(name, describe(cls, SPEC_HIDDEN, cls.parts, cls.default_notes), cls.summary)
            for name, cls in AGENTS.items()]


__all__ = ["AGENTS", "SPEC_HIDDEN",
           "AlphaBetaAgent", "Agent", "FlatMonteCarloAgent", "GreedyAgent", "HumanAgent", "MCTSAgent",
           "MinimaxAgent",
           "RandomAgent", "catalogue",
           "legal_from_mask", "make", "register"]
