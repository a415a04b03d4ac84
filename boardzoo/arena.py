"""The arena (layer 4): many games between two agents, seats alternating, reproducible.

Game ``i`` of a run with base seed ``S`` is fully determined by ``(S, i)``: the env seed
and both agents' seeds come from ``numpy.random.SeedSequence([S, i])``, and agent A takes
``player_0`` (the first move) in even games, ``player_1`` in odd ones. So, with budgets
counted in work (iterations, play-outs, depth; not ``time=``, which depends on the
machine's load), a run gives the same games serially, in worker processes
(:mod:`boardzoo.workers`) or with isolated agents (:mod:`boardzoo.isolation`), and an
interrupted run resumes from its results file (:mod:`boardzoo.ledger`: append-only,
validated, locked) by playing only the games that are missing. Workers append records
in the order games finish.

One JSON line per finished game::

    {"game": 3, "env": "nim_v0", "a": "greedy", "b": "random", "base_seed": 0,
     "seed": 1234, "seat_of_a": "player_1", "first_mover": "b", "winner": "a",
     "winner_seat": "player_1", "returns": {"a": 1.0, "b": -1.0}, "plies": 9,
     "moves": [[0, 2], [1, 0], ...], "decision_seconds": {"a": [...], "b": [...]},
     "truncated": false, "forfeit": null, "scores": null}

With ``opening_plies`` N, a game's first N plies are not the agents': each is drawn
uniformly from the legal moves by a generator seeded with the base seed and the game's
*pair* (games 2k and 2k+1), so both seatings of a pair start from the same opening and
each agent plays each side of it. That is how two agents that break no ties at random
play more than two distinct games, as engine testers use opening books. The record says
``"opening_plies": N``; the opening's moves are in ``moves`` but not in
``decision_seconds``; a game the opening itself ends counts as played.

``forfeit`` is ``{"by": "a" or "b", "reason": ...}`` when an agent played an illegal move
(or its referee stopped a move that ran past its time limit: the web server does).
A side named by a preset (``geister-expert``) adds ``"presets": {"a": "purple:..."}``, the
spec the preset stood for: a results file refuses to resume once the preset changes.

``moves`` lists every event as ``[seat, action]`` with seat -1 for chance outcomes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from boardzoo.agents import Agent
from boardzoo.agents import make as make_agent
from boardzoo.envs import BoardGameEnv
from boardzoo.envs import make as make_env
from boardzoo.errors import AgentError, BoardzooError, MoveTimeLimitError, PlayerQuit, SpecError, WorkerError
from boardzoo.games.model import GameState
from boardzoo.ledger import Ledger, check_writable_path, other_run
from boardzoo.progress import ProgressBar
from boardzoo.summary import format_summary as format_summary  # the arena's summary, where callers look
from boardzoo.summary import summarize as summarize
from boardzoo.values import whole
from boardzoo.workers import MAX_WORKERS, run_tasks

SEATS = ("player_0", "player_1")
#: Fields whose values depend on the machine's speed, not on the seed.
TIMING_FIELDS = ("decision_seconds",)


#: The most games one run plays (its list of games to play is held in memory).
MAX_GAMES = 10_000_000
#: The longest random opening a run may ask for.
MAX_OPENING_PLIES = 1_000
#: Tells the openings' generator apart from the games' seeds (see :func:`opening_generator`).
_OPENING_STREAM = 0x6F70656E


def check_seed(seed) -> None:
    """A base seed is an int >= 0 (numpy's SeedSequence takes no negative entropy)."""
    whole("the seed", seed, low=0, error=SpecError)


def check_run(command: str, games: int, workers: int, seed: int, opening_plies: int = 0) -> None:
    """Raise SpecError for a run's bad sizes: ``games`` (per pair, in a league) and
    ``workers`` ints in range, the base seed an int >= 0, ``opening_plies`` from 0."""
    for name, value, most in (("games", games, MAX_GAMES), ("workers", workers, MAX_WORKERS)):
        whole(f"{command}: {name}", value, 1, most, error=SpecError)
    whole(f"{command}: opening plies", opening_plies, 0, MAX_OPENING_PLIES, error=SpecError)
    check_seed(seed)


def refuse_interactive(command: str, agents: dict[str, Agent]) -> None:
    """Raise SpecError for an agent that needs a person (those play in ``boardzoo play``);
    ``agents`` maps how the message names each agent to the agent."""
    for name, agent in agents.items():
        if agent.interactive:
            raise SpecError(f"{command}: {name} needs a person; use 'boardzoo play'")


def game_seeds(base_seed: int, game: int) -> tuple[int, int, int]:
    """(env seed, seed of agent A, seed of agent B) of game ``game``."""
    check_seed(base_seed)
    env_seed, seed_a, seed_b = np.random.SeedSequence([base_seed, game]).generate_state(3)
    return int(env_seed), int(seed_a), int(seed_b)


def opening_generator(base_seed: int, game: int) -> np.random.Generator:
    """The generator that draws game ``game``'s random opening: the same for both games
    of a pair (2k and 2k+1), apart from the games' own seeds."""
    check_seed(base_seed)
    return np.random.default_rng([base_seed, game // 2, _OPENING_STREAM])


def play_game(env_spec: str, spec_a: str, spec_b: str, game: int, base_seed: int = 0,
              env: BoardGameEnv | None = None, agents: dict | None = None,
              on_step=None, probe=None, a_first: bool = False, before_step=None,
              opening_plies: int = 0) -> dict[str, Any]:
    """Play game ``game`` of a run and return its record (see the module docstring).

    ``env`` and ``agents`` (``{"a": Agent, "b": Agent}``) may be passed in to reuse them
    across games; ``on_step(env)`` is called after the reset and after every move (the
    CLI renders there), ``before_step(env, seat, action)`` before every move (it
    announces). Agent A plays ``player_0`` in even games: game 0 of ``play`` puts
    the first agent named on the first move. ``probe(model, agent)``, when given, is
    called after every decision and what it returns (a JSON-able dict, or None to skip)
    goes into ``record["probes"]`` with the agent's label (experiments collect search
    statistics this way). ``a_first`` puts agent A on the first move in every game (a
    study that scores the starting player). ``opening_plies``: the first so many plies
    are a random opening shared by the pair of games (see the module docstring).
    """
    env_seed, seed_a, seed_b = game_seeds(base_seed, game)
    env = env if env is not None else make_env(env_spec)
    if agents is None:
        agents = {"a": make_agent(spec_a), "b": make_agent(spec_b)}
    agents["a"].reset(seed_a)
    agents["b"].reset(seed_b)
    seat_of_a = SEATS[0] if a_first else SEATS[game % 2]
    label_of = {seat_of_a: "a", SEATS[1 - SEATS.index(seat_of_a)]: "b"}
    times: dict[str, list[float]] = {"a": [], "b": []}
    probes: list[dict] = []
    final: dict[str, float] = {}
    truncated = False
    forfeit = None
    opening = opening_generator(base_seed, game)
    opened = 0
    env.reset(seed=env_seed)
    raw = env.unwrapped
    if on_step is not None:
        on_step(env)
    for seat in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        label = label_of[seat]
        if termination or truncation:
            final[label] = float(reward)
            truncated = truncated or truncation
            if "forfeit" in info and info["forfeit"]["agent"] != seat:  # the reason others may see
                forfeit = {"by": label_of[info["forfeit"]["agent"]], "reason": info["forfeit"]["reason"]}
            env.step(None)
            continue
        model = raw.model(seat)
        if opened < opening_plies:
            legal = model.legal_actions()
            action = legal[int(opening.integers(len(legal)))]
            opened += 1
            if before_step is not None:
                before_step(env, seat, action)
            env.step(action)
            if on_step is not None:
                on_step(env)
            continue
        start = time.perf_counter()
        try:
            action = agents[label].act(observation, model)
        except PlayerQuit:
            raise  # not a failure of the agent: the person left
        except MoveTimeLimitError as error:  # the referee stopped the move: a loss, like an illegal move
            times[label].append(time.perf_counter() - start)
            raw.forfeit(seat, str(error), public=str(error))
            continue
        except (BoardzooError, EOFError) as error:  # anything else is a bug: its traceback shows
            raise AgentError(
                f"game {game}: agent {label} ({agents[label].spec}) failed as {seat}: {error}"
            ) from error
        times[label].append(time.perf_counter() - start)
        if probe is not None:
            found = probe(model, agents[label])
            if found is not None:
                probes.append({"agent": label, **found})
        if before_step is not None:
            before_step(env, seat, action)
        env.step(action)
        if on_step is not None:
            on_step(env)
    winner = None
    if final.get("a", 0) > final.get("b", 0):
        winner = "a"
    elif final.get("b", 0) > final.get("a", 0):
        winner = "b"
    scores = getattr(raw, "scores", None)
    record = {
        "game": game, "env": env_spec, "a": spec_a, "b": spec_b, "base_seed": base_seed,
        "seed": env_seed, "seat_of_a": seat_of_a, "first_mover": label_of["player_0"],
        "winner": winner,
        "winner_seat": None if winner is None else next(s for s, label in label_of.items() if label == winner),
        "returns": {"a": final.get("a", 0.0), "b": final.get("b", 0.0)},
        "plies": sum(1 for player, _ in raw.history if player >= 0),
        "moves": [[player, action] for player, action in raw.history],
        "decision_seconds": times, "truncated": truncated, "forfeit": forfeit,
        "scores": None if scores is None else {label_of[s]: v for s, v in scores.items()},
    }
    presets = {label: agent.full_spec for label, agent in agents.items() if agent.full_spec != agent.spec}
    if presets:  # what a preset stood for, so that a retuned preset's games are never mixed with these
        record["presets"] = presets
    if opening_plies:
        record["opening_plies"] = opening_plies
    if probe is not None:
        record["probes"] = probes
    return record


_WORKER: dict[str, Any] = {}


def make_agents(spec_a: str, spec_b: str, env: BoardGameEnv, isolate: bool = False) -> dict[str, Agent]:
    """Agents A and B for games on ``env``, each checked against the game (a Geister
    belief on Connect Four is refused here, before any game) and warmed up. With
    ``isolate`` each runs in a process of its own (:mod:`boardzoo.isolation`)."""
    if isolate:
        from boardzoo.isolation import IsolatedAgent

        agents: dict[str, Agent] = {}
        try:
            for label, spec in (("a", spec_a), ("b", spec_b)):
                agents[label] = IsolatedAgent(spec)
            ready_agents(agents.values(), env)
        except BaseException:
            close_agents(agents)
            raise
        return agents
    agents = {"a": make_agent(spec_a), "b": make_agent(spec_b)}
    ready_agents(agents.values(), env)
    return agents


def first_model(env: BoardGameEnv) -> GameState:
    """The search model of ``env``'s first position, for its first seat (resets ``env``)."""
    raw = env.unwrapped
    raw.reset(seed=0)
    return raw.model(raw.agent_selection)


def ready_agents(agents: Iterable[Agent], env: BoardGameEnv) -> None:
    """:func:`check_agents`, then :func:`warm_up_agents`, on one first position."""
    agents = list(agents)
    model = first_model(env)
    check_agents(agents, env, model)
    warm_up_agents(agents, env, model)


def check_agents(agents: Iterable[Agent], env: BoardGameEnv, model: GameState | None = None) -> None:
    """Raise SpecError when an agent's options don't fit ``env``'s game, checked on
    ``model`` (by default ``env``'s first position, which resets ``env``)."""
    model = model if model is not None else first_model(env)
    for agent in agents:
        try:
            agent.check_once(model)
        except ValueError as error:  # named by its spec, unless the message names the agent already
            said = str(error)
            raise SpecError(said if said.startswith(f"{agent.spec}:") or said.startswith(f"{agent.name}:")
                            and agent.spec == agent.name else f"{agent.spec}: {said}") from None


def warm_up_agents(agents: Iterable[Agent], env: BoardGameEnv, model: GameState | None = None) -> None:
    """Warm each agent up on ``model`` (by default ``env``'s first position, which resets
    ``env``; :meth:`Agent.warm_up`), so that a first move's compiling is not timed as the
    move."""
    model = model if model is not None else first_model(env)
    for agent in agents:
        agent.warm_up(model)


def close_agents(agents: dict[str, Agent]) -> None:
    for agent in agents.values():
        agent.close()


def play_cached(env_spec: str, spec_a: str, spec_b: str, game: int, base_seed: int, isolate: bool = False,
                probe=None, a_first: bool = False, opening_plies: int = 0) -> dict[str, Any]:
    """:func:`play_game` with the env and agents of the previous call reused when they are
    the same (worker processes play many games of one match)."""
    key = (env_spec, spec_a, spec_b, isolate)
    if _WORKER.get("key") != key:
        release_cached()
        env = make_env(env_spec)
        _WORKER.update(key=key, env=env, agents=make_agents(spec_a, spec_b, env, isolate))
    return play_game(env_spec, spec_a, spec_b, game, base_seed, _WORKER["env"], _WORKER["agents"], probe=probe,
                     a_first=a_first, opening_plies=opening_plies)


def release_cached() -> None:
    """Close the agents :func:`play_cached` keeps (their processes, when isolated)."""
    close_agents(_WORKER.pop("agents", {}))
    _WORKER.clear()


def _play_in_worker(job: dict[str, Any]) -> dict[str, Any]:
    return play_cached(**job)


def open_ledger(out: str, config: dict[str, Any]) -> Ledger:
    """The arena's results file ``out``, opened (and locked) for appending; every record in
    it must be a game of the run ``config`` (env, agents, base seed)."""
    return Ledger(out, key=lambda record: record["game"], check=lambda record: other_run(record, **config))


def run(env_spec: str, spec_a: str, spec_b: str, games: int, seed: int = 0, workers: int = 1,
        out: str | None = None, progress: bool | None = None, isolate: bool = False,
        log=lambda line: print(line, file=sys.stderr), ray: str | None = None,
        opening_plies: int = 0) -> list[dict[str, Any]]:
    """Play games ``0..games-1`` (those already in ``out`` are not played again) and return
    their records. Records in ``out`` beyond ``games`` stay there untouched. ``progress``:
    None shows a bar on a terminal and a line a minute otherwise, True always the bar,
    False nothing (see boardzoo.progress). ``ray``: the games are Ray tasks on the cluster
    at that address (``local`` starts Ray here with ``workers`` CPUs; see boardzoo.workers).
    ``opening_plies``: each pair of games starts from its own random opening of that many
    plies (see the module docstring)."""
    check_run("arena", games, workers, seed, opening_plies)
    # Build everything once up front so that bad specs fail here, not inside a worker.
    env = make_env(env_spec)
    if out is not None:
        check_writable_path(out)
    agents = make_agents(spec_a, spec_b, env, isolate)
    try:
        refuse_interactive("arena", {f"agent {label} ({agent.spec})": agent for label, agent in agents.items()})
        config = {"env": env_spec, "a": spec_a, "b": spec_b, "base_seed": seed, "opening_plies": opening_plies}
        ledger = open_ledger(out, config) if out else None
        if ledger is not None:
            ledger.open()
        try:
            return _run(ledger, env_spec, spec_a, spec_b, games, seed, workers, env, agents, isolate,
                        progress, log, ray, opening_plies)
        finally:
            if ledger is not None:
                ledger.close()
    finally:
        close_agents(agents)


def _run(ledger, env_spec, spec_a, spec_b, games, seed, workers, env, agents, isolate, progress, log, ray,
         opening_plies):
    done: dict[int, dict] = {}
    if ledger is not None:
        for note in ledger.notes:
            log(f"note: {note}")
        done = {game: record for game, record in ledger.records.items() if game < games}
    todo = [(spec_a, spec_b, g) for g in range(games) if g not in done]
    bar = None if progress is False else ProgressBar(games, "arena", "games", initial=len(done),
                                                      interactive=progress)
    tally = {"a": 0, "b": 0, None: 0}

    def finished(record: dict) -> None:
        done[record["game"]] = record
        if bar:
            tally[record["winner"]] += 1
            bar.update(status=f"a {tally['a']}  b {tally['b']}  ties {tally[None]}")

    if ray is not None or workers > 1 and len(todo) > 1:
        close_agents(agents)  # the workers build their own; these were for the checks
    try:
        play_jobs(env_spec, todo, seed, workers, env, lambda a, b: agents, isolate, ledger, finished, ray,
                  opening_plies)
    finally:
        if bar:
            bar.close()
    return [done[g] for g in sorted(done)]


def play_jobs(env_spec: str, jobs: list[tuple[str, str, int]], seed: int, workers: int, env: BoardGameEnv,
              agents_for, isolate: bool, ledger: Ledger | None, finished,
              ray: str | None = None, opening_plies: int = 0) -> None:
    """Play every ``(spec_a, spec_b, game)`` of ``jobs`` from base seed ``seed``: in this
    process with ``agents_for(spec_a, spec_b)`` on ``env``, or in ``workers`` processes
    that build their own, or as Ray tasks at address ``ray``. Each record is appended to
    ``ledger`` (if any), then handed to ``finished(record)``, in the order games finish. A
    dead worker ends the run with the finished games on disk (the arena and the league
    share this)."""
    if ray is None and (workers == 1 or len(jobs) <= 1):
        played: Iterable[dict] = (play_game(env_spec, a, b, game, seed, env, agents_for(a, b),
                                            opening_plies=opening_plies) for a, b, game in jobs)
    else:
        tasks = [{"env_spec": env_spec, "spec_a": a, "spec_b": b, "game": game, "base_seed": seed, "isolate": isolate,
                  "opening_plies": opening_plies} for a, b, game in jobs]
        played = run_tasks(_play_in_worker, tasks, max(1, min(workers, len(jobs))), ray)
    try:
        for record in played:
            if ledger is not None:
                ledger.append(record)
            finished(record)
    except WorkerError as error:
        saved = (f"; the games finished so far ({len(ledger.records)}) are in {ledger.path}: run the same "
                 "command to play the rest") if ledger is not None else ""
        raise WorkerError(f"{error}{saved}") from None
