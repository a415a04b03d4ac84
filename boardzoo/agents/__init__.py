"""Agents (layer 3): generic players that see games only through the env API and the
search model. Build one from a spec string:

    from boardzoo.agents import make
    agent = make("greedy", seed=0)
    action = agent.act(observation, env.unwrapped.model(agent_name))
"""

from __future__ import annotations

from dataclasses import dataclass

from boardzoo.agents.alphazero import AlphaZeroAgent
from boardzoo.agents.base import Agent, legal_from_mask
from boardzoo.agents.flat_monte_carlo import FlatMonteCarloAgent
from boardzoo.agents.mcts import MCTSAgent
from boardzoo.agents.minimax import AlphaBetaAgent, MinimaxAgent
from boardzoo.agents.network import NetworkAgent
from boardzoo.agents.purple import PurpleAgent
from boardzoo.agents.sb3 import SB3Agent
from boardzoo.agents.simple import GreedyAgent, HumanAgent, PolicyAgent, RandomAgent
from boardzoo.agents.solver import SolverAgent
from boardzoo.errors import SpecError
from boardzoo.spec import build, describe, split_spec

#: Registered agents: spec name -> class.
AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (
    RandomAgent, GreedyAgent, HumanAgent, PolicyAgent, MCTSAgent, FlatMonteCarloAgent, MinimaxAgent, AlphaBetaAgent,
    SolverAgent, SB3Agent, PurpleAgent, AlphaZeroAgent, NetworkAgent)}

#: Constructor parameters that a spec string can't meaningfully set (left out of listings).
SPEC_HIDDEN = ("seed", "stdin", "stdout", "evaluator")


@dataclass(frozen=True)
class Preset:
    """A named, tuned composition of an agent's parts: ``name`` stands for ``spec``, and
    parameters written after it (``name:iterations=2000``) override the spec's own;
    ``games``, the games it plays when its parts play fewer than its agent does."""

    spec: str
    summary: str
    games: frozenset[str] | None = None


#: Presets: spec name -> the agent spec it stands for.
PRESETS: dict[str, Preset] = {
    "geister-expert": Preset(
        "purple:time=0.17,belief=profile,hunt=3,repeat=40,race=1,red_pull=0.6,caution=2",
        "Geister's strongest player (the geister-client default): alpha-beta on the purple abstraction "
        "(compiled with the fast extra) with the opponent's tells learned in the game and over a match, "
        "the race to the exits judged beyond the horizon, reds sent forward as bait, captures that may be "
        "red priced twice, sure blues hunted with two reds, no back-and-forth play, within 0.17 s a move"),
    "geister-learned": Preset(
        "mcts:policy=puct,model=shipped,belief=network,match=learn,adjudicate=race,threats=worse,time=0.17",
        "Geister's learned player: PUCT search over the network shipped for Geister (trained by self-play on "
        "each seat's information state, boardzoo train geister), the hidden colours drawn by its belief head, "
        "weighed over a match against the opponent profile, a ghost about to escape read the worse way, "
        "settled races to the exits scored at the leaves, its placement drawn from the network's own mix, "
        "within 0.17 s a move",
        games=frozenset({"geister"})),
}


def parse(spec: str) -> tuple[str, dict[str, str], str]:
    """``spec`` read once: the agent's name, its parameters as written, and the spec in
    full (a preset's name replaced by the spec it stands for, its own parameters
    overriding the preset's; any other spec as it is)."""
    name, raw = split_spec(spec)
    if name not in PRESETS:
        return name, raw, spec
    base, params = split_spec(PRESETS[name].spec)
    params.update(raw)
    return base, params, f"{base}:" + ",".join(f"{key}={value}" for key, value in params.items())


def expand(spec: str) -> str:
    """``spec`` in full: a preset's name replaced by the spec it stands for."""
    return parse(spec)[2]


def register(cls: type[Agent]) -> type[Agent]:
    """Add an agent class to the registry (usable as a decorator)."""
    AGENTS[cls.name] = cls
    return cls


def make(spec: str, seed: int | None = None, **overrides) -> Agent:
    """Build an agent from ``"name:key=value,..."`` (an agent or a preset's name);
    unknown names/parameters raise SpecError."""
    name, raw, full = parse(spec)
    if name not in AGENTS:
        raise SpecError(f"unknown agent {name!r}; agents are: {', '.join(AGENTS)}; presets: {', '.join(PRESETS)}")
    cls = AGENTS[name]
    kwargs = build(cls, name, raw, hidden=SPEC_HIDDEN, parts=cls.parts)
    try:
        agent = cls(seed=seed, **kwargs, **overrides)
    except ValueError as error:
        raise SpecError(f"{spec}: {error}") from error
    agent.spec, agent.full_spec = spec.strip(), full.strip()
    preset = PRESETS.get(split_spec(spec)[0])
    if preset is not None:
        agent.preset_games = preset.games
    return agent


def agent_games(name: str) -> frozenset[str] | None:
    """The games agent or preset ``name`` plays (None: every game)."""
    if name in PRESETS:
        if PRESETS[name].games is not None:
            return PRESETS[name].games
        name = parse(PRESETS[name].spec)[0]
    return AGENTS[name].games


def catalogue() -> list[tuple[str, str, str]]:
    """(name, parameters with defaults, summary) of every agent and preset, for listings."""
    return [(name, describe(cls, SPEC_HIDDEN, cls.parts, cls.default_notes), cls.summary)
            for name, cls in AGENTS.items()] + [(name, f"= {preset.spec}", preset.summary)
                                                for name, preset in PRESETS.items()]


__all__ = ["AGENTS", "PRESETS", "SPEC_HIDDEN", "Preset", "agent_games", "expand", "parse",
           "AlphaBetaAgent", "AlphaZeroAgent", "Agent", "FlatMonteCarloAgent", "GreedyAgent", "HumanAgent", "MCTSAgent",
           "MinimaxAgent", "PolicyAgent",
           "RandomAgent", "SolverAgent", "catalogue",
           "legal_from_mask", "make", "register"]
