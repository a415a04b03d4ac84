"""A training run's directory: the files that make a run resumable, and the rules for
each.

    checkpoint.pt        the run's whole state (format 2; format 1 is still read), written
                         whole beside the old one, then renamed over it
    config.json          the settings, for people (the checkpoint holds them too)
    history.jsonl        a line per generation
    weights/             gen-NNNN.npz of the newest generations (and every keep_every-th),
                         latest.npz, averaged.npz: what ``alphazero:weights=`` reads
    staging/             the current generation's finished self-play tasks, one file each
    rejected/            staged files that could not be used, set aside for a look
    eval/                the evaluation games, one results file per generation and opponent
    .lock                held while a trainer runs (an OS lock: it goes with a killed process)

The directory is named by its real path, so a run resumed as ``runs/x`` or as
``/home/me/runs/x`` is the same run with the same files. What cannot be used is refused
in one line (:class:`~boardzoo.errors.RunDirectoryError`): a path that is a file, a
``.lock`` that is not one, a checkpoint the disk will not take.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np
import torch

from boardzoo.errors import BoardzooError, RunDirectoryError
from boardzoo.files import load_npz
from boardzoo.ledger import write_atomic_with
from boardzoo.training.alphazero.locks import held_alone
from boardzoo.training.alphazero.selfplay import SelfPlayResult

#: The checkpoint's format; a checkpoint of another is refused, not guessed at. Format 2
#: packs 0/1 buffer inputs to bits (a full Connect Four buffer: 29 MB instead of 170, so
#: a run's checkpoint can be kept in version control); format 1 (float16 inputs) is
#: still read.
FORMAT, READABLE_FORMATS = 2, (1, 2)
CHECKPOINT, CONFIG, HISTORY = "checkpoint.pt", "config.json", "history.jsonl"
#: The moving average of the generations' networks, in ``weights/``.
AVERAGED = "averaged.npz"
LOCK = ".lock"
#: A staged task's file is read up to this size (packed or unpacked).
MAX_STAGED_BYTES = 4 << 30
_STAGED = re.compile(r"gen-(\d+)-task-(\d+)\.npz")
#: A branch's copy while it is being made, beside where it will be: ``.branch-PID-...``.
_SCRATCH = re.compile(r"\.branch-(\d+)-")
Made = TypeVar("Made")


class RunDirectory:
    """The files of the run in directory ``path`` (see the module docstring)."""

    def __init__(self, path: str, log: Callable[[str], None]):
        self.path = os.path.realpath(path)
        self.log = log
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            raise RunDirectoryError(f"{path} is a file, not a run directory")
        lock = os.path.join(self.path, LOCK)
        if os.path.lexists(lock) and not os.path.isfile(lock):
            raise RunDirectoryError(f"{lock} is not a file (a run directory's lock is one); remove it")

    def file(self, *parts: str) -> str:
        return os.path.join(self.path, *parts)

    def folder(self, *parts: str) -> str:
        """The run's folder ``parts`` (the run directory itself when none), made if need be;
        a path that cannot be one is refused in one line."""
        path = self.file(*parts)
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as error:
            raise RunDirectoryError(f"cannot make the folder {path}: {error.strerror or error}") from None
        return path

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """This process alone trains the run while the block runs."""
        with held_alone(self.file(LOCK), f"{self.path} is being trained by another trainer; a run directory "
                        "takes one trainer at a time"):
            yield

    # --- the checkpoint ---------------------------------------------------------------------------------
    def has_checkpoint(self) -> bool:
        return os.path.exists(self.file(CHECKPOINT))

    def checkpoint_identity(self) -> tuple[int, int] | None:
        """Which file the checkpoint is: every checkpoint is a new file renamed into place."""
        try:
            stat = os.stat(self.file(CHECKPOINT))
        except FileNotFoundError:
            return None
        return stat.st_ino, stat.st_mtime_ns

    def read_checkpoint(self) -> dict[str, Any]:
        path = self.file(CHECKPOINT)
        try:
            saved = torch.load(path, weights_only=True)
        except Exception as error:  # torch raises many kinds for a damaged file
            raise ValueError(f"{path} is not a readable checkpoint ({type(error).__name__}: {error})") from None
        if not isinstance(saved, dict) or saved.get("format") not in READABLE_FORMATS:
            raise ValueError(f"{path} is not a boardzoo training checkpoint of format "
                             f"{' or '.join(map(str, READABLE_FORMATS))}")
        return saved

    def write_checkpoint(self, state: dict[str, Any], history: list[dict[str, Any]]) -> None:
        """The checkpoint (``state`` with the format) and the history beside it; the old
        checkpoint stays whole when the new one cannot be written."""
        self.write_file(self.file(CHECKPOINT), lambda handle: torch.save({"format": FORMAT, **state}, handle))
        self.write_file(self.file(HISTORY), lambda handle: handle.write(
            "".join(json.dumps(entry) + "\n" for entry in history).encode()))

    def write_config(self, config: dict[str, Any]) -> None:
        self.folder("weights")
        self.write_file(self.file(CONFIG), lambda handle: handle.write((json.dumps(config, indent=1) + "\n").encode()))

    def write_file(self, path: str, write: Callable[[Any], Any]) -> None:
        """``path`` written whole by ``write`` (a new file renamed into place), its folder
        made if need be (a run kept in version control has only its checkpoint, settings
        and history), or a RunDirectoryError that keeps the old one."""
        self.folder(os.path.dirname(path))
        try:
            write_atomic_with(path, write)
        except BoardzooError as error:  # the ledger's words for an OSError
            raise RunDirectoryError(f"{error}; the run's previous files are kept") from None
        except RuntimeError as error:  # torch's writer reports a full disk so
            raise RunDirectoryError(f"cannot write {path} ({error}); is the disk full? The run's previous files "
                                    "are kept") from None

    # --- the networks -------------------------------------------------------------------------------------
    def weights_path(self, generation: int) -> str:
        return self.file("weights", f"gen-{generation:04d}.npz")

    def write_weights(self, generation: int, network: Any, averaged: Any, keep: int, keep_every: int) -> None:
        """Generation ``generation``'s network (also as latest.npz) and the average; only
        the newest ``keep`` generations' files stay, and every ``keep_every``-th."""
        for path in (self.weights_path(generation), self.file("weights", "latest.npz")):
            self.write_file(path, network.write)
        self.write_file(self.file("weights", AVERAGED), averaged.write)
        for old in range(generation - keep, -1, -1):
            if keep_every and old % keep_every == 0:
                continue
            try:
                os.unlink(self.weights_path(old))
            except FileNotFoundError:
                break

    # --- self-play tasks staged within a generation ------------------------------------------------------
    def stage(self, generation: int, result: SelfPlayResult) -> None:
        meta = {key: getattr(result, key) for key in ("number", "games", "plies", "first_player_score", "seconds",
                                                       "evaluations", "outcomes")}
        self.write_file(self.file("staging", f"gen-{generation}-task-{result.number}.npz"),
                    lambda handle: np.savez(handle, inputs=result.inputs, policies=result.policies,
                                            values=result.values, meta=np.array(json.dumps(meta))))

    def staged(self, generation: int, tasks: int, input_size: int, actions: int) -> dict[int, SelfPlayResult]:
        """The tasks of ``generation`` already played: those whose file reads whole and
        fits this run's game. A file that does not is set aside (moved to ``rejected/``,
        said in the log) and its task is played again."""
        done: dict[int, SelfPlayResult] = {}
        if not os.path.isdir(self.file("staging")):
            return done
        for name in sorted(os.listdir(self.file("staging"))):
            match = _STAGED.fullmatch(name)
            if not (match and int(match[1]) == generation and int(match[2]) < tasks):
                continue
            path = self.file("staging", name)
            try:
                done[int(match[2])] = read_staged(path, int(match[2]), input_size, actions)
            except ValueError as error:
                os.replace(path, os.path.join(self.folder("rejected"), name))
                self.log(f"generation {generation}: set aside {name} in rejected/ ({error}); its task is played "
                         "again")
        return done

    def clear_staging(self) -> None:
        shutil.rmtree(self.file("staging"), ignore_errors=True)

    # --- evaluation games ---------------------------------------------------------------------------------
    def evaluation_games(self, generation: int, network_digest: str, opponent: str) -> str:
        """The results file of generation ``generation``'s games against ``opponent``,
        named by the network's digest too: another run in this directory, whose network
        differs, never takes these games for its own."""
        name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", opponent)[:100]
        return os.path.join(self.folder("eval"), f"gen-{generation}-{network_digest}-vs-{name}.jsonl")


def read_staged(path: str, number: int, input_size: int, actions: int) -> SelfPlayResult:
    """A staged task's result; ValueError saying why it cannot be used (unreadable, torn,
    another task's, or positions of another shape than this run's game)."""
    arrays = load_npz(path, "staged self-play task", MAX_STAGED_BYTES, MAX_STAGED_BYTES)
    try:
        meta = json.loads(str(arrays["meta"]))
        result = SelfPlayResult(inputs=arrays["inputs"], policies=arrays["policies"], values=arrays["values"], **meta)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not a task's result: {error}") from None
    if result.number != number:
        raise ValueError(f"it holds task {result.number}'s games")
    n = len(result.values)
    if result.inputs.shape != (n, input_size) or result.policies.shape != (n, actions) or result.values.ndim != 1:
        raise ValueError(f"its positions are {result.inputs.shape[1:]} inputs and {result.policies.shape[1:]} "
                         f"policies, this run's game has ({input_size},) and ({actions},)")
    return result


def branch_directory(source: str, run_dir: str, make: Callable[[str], Made], log: Callable[[str], None]) -> Made:
    """Run directory ``run_dir`` made from a copy of run ``source`` (only read) by
    ``make(copy)``, which opens the copied run there and changes it (a branch: its
    settings, its record of commands). ``run_dir`` appears whole or not at all: the copy
    is made beside it and renamed onto it, and removed if anything fails. ``make``'s
    answer is returned; its files are now in ``run_dir``, not in the path it was given."""
    if not os.path.exists(os.path.join(source, CHECKPOINT)):
        raise ValueError(f"{source} holds no training run (no {CHECKPOINT}) to branch from")
    if os.path.exists(run_dir) and (not os.path.isdir(run_dir) or os.listdir(run_dir)):
        raise ValueError(f"{run_dir} is not empty; a branch starts in a new run directory")
    parent = RunDirectory(os.path.dirname(os.path.abspath(run_dir)), log).folder()
    _sweep_dead_branches(parent)
    scratch = tempfile.mkdtemp(prefix=f".branch-{os.getpid()}-", dir=parent)
    try:
        shutil.copytree(source, scratch, ignore=shutil.ignore_patterns("staging", LOCK), dirs_exist_ok=True)
        made = make(scratch)
        try:
            os.rename(scratch, run_dir)  # onto nothing or an empty directory: whole or not at all
        except OSError as error:  # another branch (or anything) filled run_dir meanwhile
            raise ValueError(f"{run_dir} could not become the branch ({error.strerror}); it was filled "
                             "while the branch was copied") from None
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return made


def _sweep_dead_branches(parent: str) -> None:
    """Remove the scratch copies of branches whose process died without cleaning up
    (killed outright); those of living processes are theirs."""
    for name in os.listdir(parent):
        match = _SCRATCH.match(name)
        if not match:
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
        except (PermissionError, OverflowError):  # another user's process, or no process number at all
            continue
