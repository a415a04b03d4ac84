"""The agent x option x game matrix: every agent with every option that applies to a game
(read from the registries and the game's declared capabilities and knowledge, so a new
option or game joins the matrix by itself) plays complete legal games, and MCTS's search
statistics add up after every decision. Hypothesis samples the product; the options that
decide the structure of a search (policy, expansion, leaf evaluation, solver, reuse) are
also run in full against one game per kind of model."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardzoo.agents import make
from boardzoo.agents.mcts import FINAL, SELECTION
from boardzoo.agents.mcts.tree import Node, tree_size
from boardzoo.envs import make as make_env
from boardzoo.games.model import CHANCE
from boardzoo.games.registry import games
from boardzoo.strategy.knowledge import knowledge_of

#: Small instances of every game: (env name, constructor arguments).
#: Small envs of every game, from the game registry (``Game.small_envs``): name -> env spec.
GAMES = {name: spec for game in games().values() for name, spec in game.small_envs.items()}


class ToMoveEvaluator:
    """A made-up evaluator with both methods: a small edge for player_0, and priors that
    favour the lowest action."""

    def evaluate(self, state):
        return (0.1, -0.1)

    def prior(self, state):
        actions = sorted(state.legal_actions())
        return [(action, 2.0 if k == 0 else 1.0) for k, action in enumerate(actions)]


class PriorOnly:
    def prior(self, state):
        return [(action, 1.0) for action in state.legal_actions()]


class ValueOnly:
    def evaluate(self, state):
        return (0.0, 0.0)


EVALUATORS = {"both": ToMoveEvaluator, "prior": PriorOnly, "value": ValueOnly}


def model_of(game: str):
    env = make_env(GAMES[game])
    env.reset(seed=0)
    return env.unwrapped.model(env.agent_selection)


def beliefs_of(model) -> list[str]:
    """The game's beliefs that read ``model`` (a belief may refuse a member of a family)."""
    beliefs = knowledge_of(model).beliefs
    return [name for name in beliefs if getattr(beliefs[name], "refuses", lambda model: None)(model) is None]


def mcts_options(game: str) -> dict[str, list]:
    """Every MCTS option and the values that apply to ``game``."""
    model = model_of(game)
    knowledge, capabilities = knowledge_of(model), model.capabilities
    leaves = ([f"rollout={name}" for name in knowledge.rollout_names()] + ["rollout=random,max_rollout=3"]
              + [f"value={name}" for name in knowledge.evaluators] + [f"evaluator={name}" for name in EVALUATORS])
    return {
        "policy": [f"policy={name}" for name in SELECTION.names()],
        "final": ["final=visits", "final=value", "final=value,c_final=1", "final=lcb"],
        "nthr": ["nthr=0", "nthr=2"],
        "q": ["q=win-lose", "q=wins", "q=score"],
        "chance": ["chance=tree"] if capabilities.hidden_information else ["chance=tree", "chance=open"],
        "leaf": leaves,
        "reuse": ["reuse=false", "reuse=true"] if capabilities.key else ["reuse=false"],
        "solver": ["solver=false"] if capabilities.hidden_information else ["solver=false", "solver=true"],
        "belief": ([f"belief={name}" for name in beliefs_of(model)] if capabilities.hidden_information else [""]),
    }


def agent_specs(game: str) -> list[str]:
    """The other agents with every option that applies to ``game``."""
    model = model_of(game)
    knowledge, capabilities = knowledge_of(model), model.capabilities
    specs = ["random"] + (["greedy"] if knowledge.greedy else [])
    beliefs = [f",belief={name}" for name in beliefs_of(model)] or [""]
    for rollout, belief in itertools.product(knowledge.rollout_names(), beliefs):
        specs.append(f"flatmc:playouts=2,rollout={rollout},max_rollout=20{belief}")
    for name, evaluator in itertools.product(("minimax", "alphabeta"), ["simple", *knowledge.evaluators]):
        specs += [f"{name}:depth=2,eval={evaluator}", f"{name}:time=0.005,eval={evaluator}"]
        if capabilities.initial:
            specs.append(f"{name}:depth=1,eval={evaluator},random_first=true")
    return specs


def build_mcts(choice: dict[str, str], seed: int):
    parts = [value for key, value in choice.items() if value and not value.startswith("evaluator=")]
    evaluator = None
    if choice["leaf"].startswith("evaluator="):
        evaluator = EVALUATORS[choice["leaf"].split("=")[1]]()
    spec = "mcts:iterations=12," + ",".join(parts)
    refusals = []  # what the spec combines that cannot go together, each refused clearly
    if choice["q"] == "q=wins" and (choice["leaf"].startswith("value=")
                                    or choice["leaf"] in ("evaluator=both", "evaluator=value")):
        refusals.append("q=wins counts the wins")  # wins of roll-outs, not values
    if choice["policy"] == "policy=puct" and choice["q"] != "q=win-lose":
        refusals.append("is another scale")  # PUCT's unvisited child is a draw at 0
    if choice.get("chance") == "chance=open" and choice["reuse"] == "reuse=true":
        refusals.append("drop reuse=true or chance=open")
    if choice.get("chance") == "chance=open" and choice["solver"] == "solver=true":
        refusals.append("drop solver=true or chance=open")
    if refusals:
        with pytest.raises(Exception, match="|".join(refusals)):
            make(spec, seed=seed, evaluator=evaluator)
        return None
    return make(spec, seed=seed, evaluator=evaluator)


def check_statistics(agent, root_before: Node | None) -> None:
    """Search statistics that must add up after an MCTS decision."""
    stats, root = agent.stats, agent.root
    children = root.children
    visits = sum(child.visits for child in children)
    assert stats["root_visits"] == root.visits
    assert stats["tree_size"] == tree_size(root)
    if not stats["reused_tree"]:
        assert root.visits == stats["iterations"]
        assert visits == stats["iterations"]  # every iteration goes through a child of the root
    else:
        assert stats["iterations"] <= visits <= root.visits
    assert stats["action"] in [child.action for child in children]
    stack = [root]
    while stack:  # every move node's mover is a player, every outcome's CHANCE; visits add up below
        node = stack.pop()
        if node is not root:
            assert node.mover in (0, 1, CHANCE)
        below = sum(child.visits for child in node.children or [])
        assert below <= node.visits
        if node.mover >= 0 and node.visits:
            assert abs(node.total) <= node.visits + 1e-9
        stack.extend(node.children or [])


def play(game: str, agent, seed: int) -> int:
    """One complete game of ``agent`` against random, its seat drawn by ``seed``; every
    move is checked against the mask. Returns the number of moves ``agent`` made."""
    env = make_env(GAMES[game])
    env.reset(seed=seed)
    rng = random.Random(seed)
    seat = env.possible_agents[seed % 2]
    agent.reset(seed)
    opponent = make("random", seed=seed)
    moves = 0
    for name in env.agent_iter(max_iter=10_000):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        player = agent if name == seat else opponent
        action = player.act(observation, env.unwrapped.model(name))
        assert observation["action_mask"][action] == 1, (player, action)
        if player is agent:
            moves += 1
            if agent.name == "mcts":
                check_statistics(agent, None)
        env.step(action)
    assert not env.agents and rng  # the game ended
    assert not any(info.get("forfeit") for info in env.infos.values())
    return moves


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mcts_option_matrix_plays_complete_legal_games(data):
    game = data.draw(st.sampled_from(sorted(GAMES)), label="game")
    choice = {key: data.draw(st.sampled_from(values), label=key) for key, values in mcts_options(game).items()}
    agent = build_mcts(choice, seed=data.draw(st.integers(0, 99), label="seed"))
    if agent is not None:
        assert play(game, agent, seed=data.draw(st.integers(0, 99), label="game seed")) > 0


@pytest.mark.parametrize("game", ["nim-coin", "connect_four", "geister"])
def test_mcts_structural_options_in_full(game):
    """policy x expansion x leaf kind x solver x reuse, all of it, on one game of each kind
    of model (chance events, perfect information, an information set)."""
    options = mcts_options(game)
    leaves = [options["leaf"][0], "evaluator=both"]
    played = 0
    for policy, nthr, leaf, solver, reuse in itertools.product(options["policy"], options["nthr"], leaves,
                                                               options["solver"], options["reuse"]):
        choice = {"policy": policy, "nthr": nthr, "leaf": leaf, "solver": solver, "reuse": reuse,
                  "q": "q=win-lose", "final": "final=visits", "belief": options["belief"][-1]}
        agent = build_mcts(choice, seed=played)
        played += play(game, agent, seed=played) > 0
    assert played == len(options["policy"]) * 2 * 2 * len(options["solver"]) * len(options["reuse"])


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_other_agent_with_every_option_plays_complete_legal_games(game):
    specs = agent_specs(game)
    assert len(specs) >= 6
    for k, spec in enumerate(specs):
        assert play(game, make(spec, seed=k), seed=k) > 0, spec


def test_every_registered_part_is_in_the_matrix():
    """A policy or final choice registered later joins the matrix without editing it."""
    options = mcts_options("connect_four")
    assert {value.split("=")[1] for value in options["policy"]} == set(SELECTION.names())
    assert {value.split(",")[0].split("=")[1] for value in options["final"]} == set(FINAL.names())
