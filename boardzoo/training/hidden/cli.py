"""``boardzoo train GAME`` for a game with hidden information: start or resume a run of
the hidden-information trainer from the command line. It trains in one process;
``--workers N`` gives PyTorch N threads for the network's passes."""

from __future__ import annotations

import argparse
import dataclasses
import os

from boardzoo.training.alphazero.cli import command_line, commit
from boardzoo.training.hidden.config import PRESETS, HiddenConfig
from boardzoo.training.hidden.trainer import HiddenTrainer
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
    for option, given in (("--ray", args.ray), ("--branch-from", args.branch_from)):
        if given:
            raise ValueError(f"train: {option} is for games of perfect information; {args.game} trains in one "
                             "process")
    whole("train: --workers", args.workers, 1, 256)
    if args.generations is not None:
        whole("train: --generations", args.generations, 1, 10_000_000)
    for option, value in (("--hours", args.hours), ("--run-hours", args.run_hours)):
        if value is not None:
            number(f"train: {option}", value, 1e-6, 10_000)
    settings = parse_assignments(args.set)
    run_dir = args.run_dir or os.path.join("runs", f"train-{args.game}")
    resuming = os.path.exists(os.path.join(run_dir, "checkpoint.pt"))
    config = None if resuming and not settings and not args.env \
        else with_env(PRESETS[args.game], args.env).with_settings(settings)
    trainer = HiddenTrainer(run_dir, config, commit=commit(), command=command_line(), threads=args.workers)
    if trainer.config.game != args.game:
        raise ValueError(f"train: {run_dir} trains {trainer.config.game}, not {args.game}")
    if args.generations is None and args.hours is None and args.run_hours is None:
        raise ValueError("train: say when to stop: --generations (iterations), --hours or --run-hours")
    trainer.train(iterations=args.generations, hours=args.hours, run_hours=args.run_hours)
    print(os.path.join(run_dir, "weights", "latest.npz"))
    return 0
