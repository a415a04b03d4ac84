"""Batched games (``boardzoo.vector``) side by side in one run: plies per second of random
legal play with both seats' observations and the masks written every step.

* Connect Four at 1,024 games: the compiled batch against pgx's Connect Four (JAX on the
  CPU, 100 steps fused in one jitted loop with auto-reset, random legal actions drawn in
  the loop) and against boardzoo's AEC env played by hand (``agent_iter``/``last``/``step``).
* Every game with a compiled batch at 1, 64, 1,024 and 4,096 games, against its AEC env.

Random actions for the batches are drawn by ``boardzoo.vector.random_actions`` (one
compiled call a step), timed with the step. The run is held to one core (JAX would otherwise spread over all of
them while the compiled batch uses one). pgx is measured only where it is installed (``pip install pgx "jax[cpu]"``).

    python bench/bench_vector.py [--seconds 2] [--rounds 3] [--games SPEC ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from common import machine, table

from boardzoo.envs import make as make_env
from boardzoo.vector import make, random_actions

#: Each game's env as benchmarked (Nim with the coin, so chance events are in the loop).
GAMES = {"nim_v0:n=15..25,coin=true": "Nim, coin", "connect_four_v0": "Connect Four", "cantris_v1": "Cantris 8x4",
         "geister_v0": "Geister"}
BATCHES = (1, 64, 1024, 4096)


def timed(run, seconds: float) -> float:
    """Plies per second of ``run(n) -> plies`` over about ``seconds``, after one warm-up call."""
    run(1)
    n, plies, start = 1, 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        plies += run(n)
        n *= 2
    return plies / elapsed


def batch_rate(spec: str, batch: int, seconds: float) -> float:
    games = make(spec, batch=batch, auto_reset=True, engine="compiled")
    state = games.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(steps: int) -> int:
        nonlocal state
        for _ in range(steps):
            state = games.step(state, random_actions(state, rng))
        return steps * batch

    return timed(run, seconds)


def aec_rate(spec: str, seconds: float) -> float:
    env = make_env(spec)
    rng = np.random.default_rng(0)

    def run(games: int) -> int:
        plies = 0
        for _ in range(games):
            env.reset(seed=int(rng.integers(2**31)))
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
                plies += 1
        return plies

    return timed(run, seconds)


def pgx_rate(batch: int, seconds: float) -> float | None:
    """pgx's Connect Four, ``batch`` games, 100 random legal steps a jitted call (None
    without pgx)."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make("connect_four")
    init, step = jax.vmap(env.init), jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def hundred(state, key):
        def body(_, carry):
            state, key = carry
            key, pick, reset = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(pick, logits, axis=1)
            state = step(state, action, jax.random.split(reset, batch))
            return state, key
        return jax.lax.fori_loop(0, 100, body, (state, key))

    carry = (jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch)), jax.random.PRNGKey(1))

    def run(calls: int) -> int:
        nonlocal carry
        for _ in range(calls):
            carry = hundred(*carry)
        jax.block_until_ready(carry)
        return calls * 100 * batch

    return timed(run, seconds)


def medians(cases: dict, rounds: int) -> dict[str, float | None]:
    """The median of ``rounds`` interleaved rounds of each case (None where it cannot run)."""
    samples: dict[str, list] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, run in cases.items():
            samples[name].append(run())
    return {name: None if None in values else statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time a case runs, each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", nargs="+", default=list(GAMES), help="the env specs of the per-game table")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):  # one core for all: numba runs on one, JAX would take them all
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"{machine()}; medians of {args.rounds} interleaved rounds of {args.seconds:g} s\n")

    head = medians({"compiled": lambda: batch_rate("connect_four_v0", 1024, args.seconds),
                    "pgx": lambda: pgx_rate(1024, args.seconds),
                    "aec": lambda: aec_rate("connect_four_v0", args.seconds)}, args.rounds)
    rows = [["boardzoo.vector, compiled, 1,024 games", f"{head['compiled']:,.0f}", "1.0x"]]
    if head["pgx"] is not None:
        rows.append(["pgx connect_four, JAX CPU, 1,024 games", f"{head['pgx']:,.0f}",
                     f"{head['compiled'] / head['pgx']:.1f}x"])
    else:
        rows.append(["pgx connect_four (not installed)", "-", "-"])
    rows.append(["boardzoo AEC env, one game", f"{head['aec']:,.0f}", f"{head['compiled'] / head['aec']:.1f}x"])
    print("Connect Four, random legal play, observations and masks written\n")
    print(table(["implementation", "plies/s", "boardzoo.vector is"], rows))

    specs = args.games
    cases = {(spec, "aec"): (lambda s=spec: aec_rate(s, args.seconds)) for spec in specs}
    for spec in specs:
        for batch in BATCHES:
            cases[(spec, batch)] = lambda s=spec, b=batch: batch_rate(s, b, args.seconds)
    figures = medians(cases, args.rounds)
    rows = []
    for spec in specs:
        aec = figures[(spec, "aec")]
        row = [GAMES.get(spec, spec), f"{aec:,.0f}"]
        row += [f"{figures[(spec, batch)]:,.0f} ({figures[(spec, batch)] / aec:.0f}x)" for batch in BATCHES]
        rows.append(row)
    print("\nEvery game: plies/s (and x the AEC env) by batch size, compiled batches\n")
    print(table(["game", "AEC env", *(f"{batch:,} games" for batch in BATCHES)], rows))


if __name__ == "__main__":
    main()
