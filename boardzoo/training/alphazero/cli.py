"""``boardzoo train GAME``: start or resume a training run from the command line."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from boardzoo.errors import SpecError
from boardzoo.training.alphazero.config import DEFAULT_GENERATIONS, PRESETS
from boardzoo.training.alphazero.trainer import AVERAGED, CHECKPOINT, Trainer, branch
from boardzoo.training.settings import parse_assignments
from boardzoo.values import number, whole

Run = TypeVar("Run")


def commit() -> str:
    """The commit of the boardzoo source being run, when it is a git checkout."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        done = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def command_line() -> str:
    """The command being run, when it is the boardzoo command (for the run's records)."""
    return shlex.join(["boardzoo", *sys.argv[1:]]) if sys.argv and sys.argv[0].endswith("boardzoo") else ""


def open_run(run_dir: str, resuming: bool, branch_from: str | None, settings: dict[str, str], changed: bool,
             new_config: Callable[[], Any], open_trainer: Callable[[Any], Run],
             make_branch: Callable[[], Run]) -> Run:
    """The trainer of ``run_dir``, either trainer's: a new branch of ``branch_from``, the
    run there resumed, or a new run of ``new_config()`` (``changed``: the command sets
    something). A branch's settings are its source's with ``settings`` changed, not the
    preset's, so the same command run again resumes it if they still hold."""
    if branch_from and not resuming:
        return make_branch()
    trainer = open_trainer(None if resuming and (not changed or branch_from) else new_config())
    if branch_from and trainer.config.with_settings(settings) != trainer.config:  # type: ignore[attr-defined]
        raise ValueError(f"{run_dir} holds a run with other settings; resume it without --set, or branch "
                         "into another run directory")
    return trainer


def train(args: argparse.Namespace) -> int:
    if getattr(args, "env", None):
        raise SpecError(f"train: --env is for games with hidden information; {args.game}'s preset fixes its env")
    if args.game not in PRESETS:
        raise SpecError(f"train: no preset for {args.game!r}; presets are {', '.join(PRESETS)}")
    try:
        if args.generations is not None:
            whole("train: --generations", args.generations, 1, 100_000)
        if args.hours is not None:
            number("train: --hours", args.hours, 1e-6, 10_000)
        if args.run_hours is not None:
            number("train: --run-hours", args.run_hours, 1e-6, 10_000)
        whole("train: --workers", args.workers, 1, 1024)
        settings = parse_assignments(args.set)
        run_dir = args.run_dir or os.path.join("runs", f"train-{args.game}")
        resuming = os.path.exists(os.path.join(run_dir, CHECKPOINT))
        command = command_line()
        trainer = open_run(
            run_dir, resuming, args.branch_from, settings, bool(settings),
            new_config=lambda: PRESETS[args.game].with_settings(settings),
            open_trainer=lambda config: Trainer(run_dir, config, workers=args.workers, ray=args.ray, commit=commit(),
                                                command=command),
            make_branch=lambda: branch(args.branch_from, run_dir, settings, game=args.game, commit=commit(),
                                       command=command, workers=args.workers, ray=args.ray))
        if trainer.config.game != args.game:
            raise ValueError(f"train: {run_dir} trains {trainer.config.game}, not {args.game}")
        generations = args.generations
        if generations is None and args.hours is None and args.run_hours is None:
            generations = DEFAULT_GENERATIONS[args.game]
            print(f"train: stops at generation {generations}, the length of the run that made the shipped "
                  f"{args.game} network (--generations, --hours or --run-hours set another end)", file=sys.stderr)
        trainer.run(generations=generations, hours=args.hours, run_hours=args.run_hours)
    except ValueError as error:
        raise SpecError(str(error)) from None
    print(os.path.join(run_dir, "weights", AVERAGED))
    return 0
