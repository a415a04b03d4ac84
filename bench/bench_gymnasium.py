"""The Gymnasium face side by side in one run: plies per second of a learner playing
random legal moves against the random opponent through ``gymnasium.make_vec(...)``, at
1,024 games, for every game with a compiled batch.

* boardzoo: ``gymnasium.make_vec("boardzoo/<game>-v0", num_envs=1024,
  vectorization_mode="vector_entry_point", opponent="random")``, stepped from the host
  with the learner's actions drawn from ``infos["action_mask"]``; every move played is
  counted, the opponent's included.
* pgx, driven the same way from the host (where pgx has the game: Connect Four and
  tic-tac-toe): each host step one jitted call plays the learner's actions and a random
  legal reply in every game (auto-reset), and the learner's observations and masks come
  back to the host; two moves a game a step.
* boardzoo's AEC env, one game, both seats random legal moves by hand
  (``agent_iter``/``last``/``step``).

The run is held to one core (JAX would otherwise spread over all of them while the
compiled batch uses one). pgx is measured only where it is installed
(``pip install pgx "jax[cpu]"``).

    python bench/bench_gymnasium.py [--seconds 2] [--rounds 3] [--batch 1024]
"""

from __future__ import annotations

import argparse
import os

import gymnasium
import numpy as np
from bench_vector import aec_rate, medians, timed
from common import machine, table

import boardzoo  # noqa: F401  (registers the Gymnasium ids)
from boardzoo.envs import pettingzoo_id
from boardzoo.games.registry import games
from boardzoo.vector import random_actions

#: pgx's name for the games it has.
PGX = {"connect_four": "connect_four", "tic_tac_toe": "tic_tac_toe"}


def gymnasium_rate(game: str, batch: int, seconds: float) -> float:
    envs = gymnasium.make_vec(pettingzoo_id(games()[game].newest_env()), num_envs=batch,
                              vectorization_mode="vector_entry_point", opponent="random")
    loop = envs.unwrapped.loop
    assert loop is not None, "the compiled batch is not installed"
    _, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(steps: int) -> int:
        nonlocal infos
        before = int(loop.plies[0])
        for _ in range(steps):
            *_, infos = envs.step(random_actions(infos["action_mask"], rng))
        return int(loop.plies[0]) - before

    return timed(run, seconds)


def pgx_rate(game: str, batch: int, seconds: float) -> float | None:
    """pgx's ``game``, driven from the host as a learner would (None without pgx)."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make(PGX[game])
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def learner_then_opponent(state, actions, key):
        key, first, pick, second = jax.random.split(key, 4)
        state = step(state, actions, jax.random.split(first, batch))
        reply = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=1)
        state = step(state, reply, jax.random.split(second, batch))
        return state, key

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), batch))
    key = jax.random.PRNGKey(1)
    rng = np.random.default_rng(0)

    def run(steps: int) -> int:
        nonlocal state, key
        for _ in range(steps):
            mask = np.asarray(state.legal_action_mask)
            state, key = learner_then_opponent(state, jnp.asarray(random_actions(mask, rng)), key)
            np.asarray(state.observation)  # the learner's observations, on the host
        return 2 * steps * batch

    return timed(run, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time a case runs, each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--games", nargs="+", default=[name for name, each in games().items()
                                                       if each.compiled_core is not None])
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):  # one core for all: numba runs on one, JAX would take them all
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"{machine()}; medians of {args.rounds} interleaved rounds of {args.seconds:g} s; "
          f"{args.batch:,} games\n")
    cases = {}
    for game in args.games:
        cases[(game, "gymnasium")] = lambda g=game: gymnasium_rate(g, args.batch, args.seconds)
        if game in PGX:
            cases[(game, "pgx")] = lambda g=game: pgx_rate(g, args.batch, args.seconds)
        cases[(game, "aec")] = lambda g=game: aec_rate(games()[g].newest_env(), args.seconds)
    figures = medians(cases, args.rounds)
    rows = []
    for game in args.games:
        ours, aec = figures[(game, "gymnasium")], figures[(game, "aec")]
        theirs = figures.get((game, "pgx"))
        rows.append([games()[game].title, f"{ours:,.0f}",
                     "-" if theirs is None else f"{theirs:,.0f} ({ours / theirs:.1f}x)",
                     f"{aec:,.0f} ({ours / aec:.0f}x)"])
    print(table(["game", "boardzoo make_vec, plies/s", "pgx from the host (boardzoo is)",
                 "AEC env (boardzoo is)"], rows))


if __name__ == "__main__":
    main()
