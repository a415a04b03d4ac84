"""``boardzoo train GAME`` for a game with hidden information: start or resume a run of
the hidden-information trainer from the command line. It trains in one process;
``--workers N`` gives PyTorch N threads for the network's passes."""

from __future__ import annotations

import argparse
import dataclasses
import os

from boardzoo.training.alphazero.cli import command_line, commit, open_run
from boardzoo.training.hidden.config import PRESETS, HiddenConfig
from boardzoo.training.hidden.trainer import HiddenTrainer, branch
from boardzoo.training.settings import parse_assignments
from boardzoo.values import number, whole


def with_env(config: HiddenConfig, spec: str | None) -> HiddenConfig:
    """``config`` playing env ``spec`` (a name and parameters) instead of its own."""
    if not spec:
        return config
    from boardzoo.envs import SPEC_HIDDEN, env_module, make
    from boardzoo.spec import build, split_spec

    make(spec, raw=True)  # a bad spec is refused in its own words
    name, raw = split_spec(spec)
    params = build(env_module(name).raw_env, name, raw, hidden=SPEC_HIDDEN)
    return dataclasses.replace(config, env=name, params=params)


def train(args: argparse.Namespace) -> int:
    """Train ``args.game``'s preset (with ``--set``'s changes) in ``--run``, or resume it."""
    if args.ray:
        raise ValueError(f"train: --ray is for games of perfect information; {args.game} trains in one process")
    whole("train: --workers", args.workers, 1, 256)
    if args.generations is not None:
        whole("train: --generations", args.generations, 1, 10_000_000)
    for option, value in (("--hours", args.hours), ("--run-hours", args.run_hours)):
        if value is not None:
            number(f"train: {option}", value, 1e-6, 10_000)
    settings = parse_assignments(args.set)
    run_dir = args.run_dir or os.path.join("runs", f"train-{args.game}")
    resuming = os.path.exists(os.path.join(run_dir, "checkpoint.pt"))
    if args.branch_from and not resuming and args.env:
        raise ValueError("train: a branch plays its source's env; --env is for a new run")
    command = command_line()
    trainer = open_run(
        run_dir, resuming, args.branch_from, settings, bool(settings or args.env),
        new_config=lambda: with_env(PRESETS[args.game], args.env).with_settings(settings),
        open_trainer=lambda config: HiddenTrainer(run_dir, config, commit=commit(), command=command,
                                                  threads=args.workers),
        make_branch=lambda: branch(args.branch_from, run_dir, settings, game=args.game, commit=commit(),
                                   command=command, threads=args.workers))
    if trainer.config.game != args.game:
        raise ValueError(f"train: {run_dir} trains {trainer.config.game}, not {args.game}")
    if args.generations is None and args.hours is None and args.run_hours is None:
        raise ValueError("train: say when to stop: --generations (iterations), --hours or --run-hours")
    trainer.train(iterations=args.generations, hours=args.hours, run_hours=args.run_hours)
    print(os.path.join(run_dir, "weights", "latest.npz"))
    return 0
