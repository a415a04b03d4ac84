"""Results files: JSON lines of game records that never lose a finished game.

The arena and the experiments write every finished game as one line of a *ledger*. The
rules that keep a user's computed games safe:

* **Append only.** A record is written as one line and flushed when its game ends (and
  fsynced at least once a second and when the run ends). Nothing already on disk is ever
  rewritten: a later run with fewer games, or with another configuration, reads the file
  and keeps every line.
* **A torn tail is cut, nothing else.** A run killed in the middle of a write leaves a
  partial last line; the next run truncates the file at its last newline (that game is
  played again). A last line that is complete JSON but lacks its newline is kept (and
  given one) when it is a record, and refused otherwise; one that is not even the start
  of a record means the file is not a ledger, and it is refused.
* **Every line is validated** against the record schema before use. A line that is not a
  game record stops the run with its line number; it is never skipped silently nor
  overwritten. When a game appears twice, the first record stands.
* **One writer.** A run holds an exclusive lock (``flock``) on the file while it writes;
  a second run on the same file is refused at once.
* **Only ledgers.** A file that does not consist of game records (a stray ``--out``) is
  refused, never appended to.

Where a whole file must be replaced (an experiment's ``run.json`` or report),
:func:`write_atomic` writes a temporary file beside it, fsyncs it and renames it over the
old one, so a reader sees the old file or the new one, never a mixture.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections.abc import Callable, Hashable
from typing import IO, Any

from boardzoo.agents import expand
from boardzoo.errors import ResultsFileError, excerpt

try:  # POSIX; on Windows msvcrt's byte-range lock does the same job
    import fcntl
except ImportError:  # pragma: no cover - exercised on Windows only
    fcntl = None  # type: ignore[assignment]
    import msvcrt

#: A line longer than this is not a game record (records are a few KB; a Geister game
#: with search probes stays well under 1 MiB).
MAX_RECORD_BYTES = 16 * 2**20
#: How often the appended lines are forced to the disk, at least.
FSYNC_SECONDS = 1.0
#: Every record starts with these bytes (``json.dumps`` keeps the key order).
RECORD_START = b'{"game": '

_NONE = type(None)
#: The mode a new file gets from ``open``: 0666 less the process's umask (read once).
_UMASK = os.umask(0o022)
os.umask(_UMASK)
_NEW_FILE_MODE = 0o666 & ~_UMASK
#: field -> accepted types of a game record (see :mod:`boardzoo.arena`).
RECORD_SCHEMA: dict[str, tuple[type, ...]] = {
    "game": (int,), "env": (str,), "a": (str,), "b": (str,), "base_seed": (int,), "seed": (int,),
    "seat_of_a": (str,), "first_mover": (str,), "winner": (str, _NONE), "winner_seat": (str, _NONE),
    "returns": (dict,), "plies": (int,), "moves": (list,), "decision_seconds": (dict,),
    "truncated": (bool,), "forfeit": (dict, _NONE), "scores": (dict, _NONE),
}
_SEATS = ("player_0", "player_1")


def record_problem(record: Any) -> str | None:
    """What is wrong with ``record`` as a game record, or None when it is one."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    for field, types in RECORD_SCHEMA.items():
        if field not in record:
            return f"missing {field!r}"
        value = record[field]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"{field!r} is {excerpt(repr(value), 40)}, expected {' or '.join(_type_names(types))}"
    if record["game"] < 0:
        return f"'game' is {record['game']}, expected a game number >= 0"
    if record["seat_of_a"] not in _SEATS:
        return f"'seat_of_a' is {record['seat_of_a']!r}, expected player_0 or player_1"
    if record["winner"] not in ("a", "b", None):
        return f"'winner' is {record['winner']!r}, expected 'a', 'b' or null"
    for field in ("returns", "decision_seconds"):
        if set(record[field]) != {"a", "b"}:
            return f"{field!r} must have the keys 'a' and 'b'"
    problem = _meaning_problem(record)
    if problem is not None:
        return problem
    opening = record.get("opening_plies", 0)
    if type(opening) is not int or opening < 0:  # above 'plies' when the opening ended the game
        return f"'opening_plies' is {excerpt(repr(opening), 40)}, expected an int >= 0"
    presets = record.get("presets")
    if presets is not None and (not isinstance(presets, dict) or not set(presets) <= {"a", "b"}
                                or not all(isinstance(spec, str) for spec in presets.values())):
        return "'presets' must map 'a' and/or 'b' to the agent spec a preset stood for"
    return None


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _meaning_problem(record: dict) -> str | None:
    """What makes a well-typed record one that no game could have written: a seed numpy
    refuses, moves that are not ``[seat, action]``, a ply count the moves disagree with,
    times that are not lists of seconds (the summaries add them up)."""
    for field in ("base_seed", "seed"):
        if not 0 <= record[field] < 2**64:
            return f"{field!r} is {excerpt(repr(record[field]), 40)}, expected a seed from 0 to 2**64 - 1"
    if record["first_mover"] not in ("a", "b"):
        return f"'first_mover' is {excerpt(repr(record['first_mover']), 40)}, expected 'a' or 'b'"
    if record["winner_seat"] not in (*_SEATS, None) or (record["winner"] is None) != (record["winner_seat"] is None):
        return f"'winner_seat' is {excerpt(repr(record['winner_seat']), 40)}, which does not fit 'winner'"
    plies = 0
    for number, move in enumerate(record["moves"]):
        if not (isinstance(move, list) and len(move) == 2 and all(type(x) is int for x in move)
                and move[0] in (-1, 0, 1) and move[1] >= 0):
            return f"move {number} is {excerpt(repr(move), 40)}, expected [seat, action]: seat 0, 1 or -1 (chance)"
        plies += move[0] >= 0
    if record["plies"] != plies:
        return f"'plies' is {record['plies']}, but the moves hold {plies}"
    for label in ("a", "b"):
        if not _finite_number(record["returns"][label]):
            return f"'returns' of {label} is {excerpt(repr(record['returns'][label]), 40)}, expected a number"
        times = record["decision_seconds"][label]
        if not isinstance(times, list) or not all(_finite_number(t) and t >= 0 for t in times):
            return f"'decision_seconds' of {label} must be a list of seconds (numbers >= 0)"
    return None


def preset_change(record: dict) -> str | None:
    """Why ``record``'s games cannot be counted with games played now, when one of its
    agents is a preset that stood for another spec when the game was played (a preset is
    retuned between versions); None when nothing changed. Records carry ``presets``,
    ``{"a": spec}``, for each side named by a preset."""
    for label, then in (record.get("presets") or {}).items():
        now = expand(record[label])
        if now != then:
            return (f"game {record['game']} was played by {record[label]} when it stood for {then}; it now "
                    f"stands for {now} (to add games to these, name {then} itself)")
    return None


def other_run(record: dict, env: str, a: str, b: str, base_seed: int, opening_plies: int = 0) -> str | None:
    """Why a valid ``record`` is not a game of the run ``env`` ``a`` vs ``b`` from
    ``base_seed`` (with random openings of ``opening_plies``), or None when it is one."""
    then = record.get("opening_plies", 0)
    if (record["env"], record["a"], record["b"], record["base_seed"], then) == (env, a, b, base_seed, opening_plies):
        return preset_change(record)
    return (f"game {record['game']} belongs to another run ({record['env']} {record['a']} vs {record['b']}, "
            f"seed {record['base_seed']}{describe_openings(then)}; this run is {env} {a} vs {b}, seed {base_seed}"
            f"{describe_openings(opening_plies)})")


def describe_openings(plies: int) -> str:
    """How a run's description names its random openings (nothing when it has none)."""
    return f", random openings of {plies} plies" if plies else ""


def _type_names(types: tuple[type, ...]) -> list[str]:
    return ["null" if t is _NONE else {"str": "a string", "int": "an int", "dict": "an object",
                                       "list": "a list", "bool": "true/false"}[t.__name__] for t in types]


def read_records(path: str, max_records: int, keep: Callable[[dict, int], Any] | None = None,
                 quote: bool = True) -> tuple[list, list[str]]:
    """The game records of a results file, read without locking or changing it (a viewer
    may look at a file a run is still appending to), with notes on what was left out: an
    unfinished last line, records beyond ``max_records``. Any other line that is not a
    valid record raises :class:`ResultsFileError` with its line number.

    ``keep(record, offset)``, when given, is what is listed for each record instead of the
    record (``offset``: where its line starts, to read it again alone). ``quote=False``
    leaves the line's content out of the error (a server must not show what a file that
    is not a results file holds)."""
    records: list = []
    notes: list[str] = []
    try:
        handle = open(path, "rb")
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read it ({error.strerror or error})") from None
    with handle:
        number = offset = 0
        while True:
            line = handle.readline(MAX_RECORD_BYTES + 1)
            if not line:
                return records, notes
            number += 1
            if not line.endswith(b"\n"):
                notes.append(f"line {number} is unfinished (a run may still be writing it); it is left out")
                return records, notes
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            record, problem = parse_record(line)
            if problem is not None:
                raise ResultsFileError(f"{path}:{number}: not a valid game record"
                                       + (f": {problem}" if quote else ""))
            if len(records) == max_records:
                notes.append(f"only the first {max_records:,} records are shown")
                return records, notes
            records.append(record if keep is None else keep(record, start))


def parse_record(line: bytes) -> tuple[Any, str | None]:
    """A results file's line as ``(record, None)``, or ``(None, what is wrong)``."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, an int of over 4,300 digits, nested too deep
        return None, f"not JSON ({excerpt(line.decode('utf-8', 'replace').strip())!r})"
    return record, record_problem(record)


def check_writable_path(path: str) -> None:
    """Refuse, with one clear line, a path that cannot be a results file: a directory, a
    file in a folder that does not exist, a file we may not write."""
    if not isinstance(path, str) or not path:
        raise ResultsFileError("the results file needs a path")
    if os.path.isdir(path):
        raise ResultsFileError(f"{path} is a directory, not a results file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ResultsFileError(f"cannot write {path}: the folder {folder} does not exist")
    if os.path.exists(path):
        # No write permission bit counts as read-only even for root, who could write anyway.
        if not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222:
            raise ResultsFileError(f"cannot write {path}: the file is read-only")
    elif not os.access(folder, os.W_OK):
        raise ResultsFileError(f"cannot write {path}: the folder {folder} is read-only")


class Ledger:
    """An open results file: its valid records by key, locked for appending.

    ``key(record)`` identifies a game (the arena: its number; experiments: job and number);
    ``check(record)`` returns why a valid record does not belong to this run (another env,
    other agents, another seed), or None.

        with Ledger(path, key, check) as ledger:
            done = ledger.records        # key -> the first valid record of each game
            ledger.append(record)
    """

    def __init__(self, path: str, key: Callable[[dict], Hashable],
                 check: Callable[[dict], str | None] = lambda record: None):
        self.path, self.key, self.check = path, key, check
        self.records: dict[Hashable, dict] = {}
        #: Lines the reading skipped and why (repeated games): for the user to see.
        self.notes: list[str] = []
        self._file: IO[bytes] | None = None
        self._synced = time.monotonic()

    # --- opening -------------------------------------------------------------------------
    def __enter__(self) -> Ledger:
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        check_writable_path(self.path)
        try:
            handle = open(self.path, "a+b")
        except OSError as error:
            raise ResultsFileError(f"cannot open {self.path}: {error.strerror or error}") from None
        try:
            _lock(handle, self.path)
            self._read(handle)
        except BaseException:
            handle.close()
            raise
        self._file = handle

    def _read(self, handle: IO[bytes]) -> None:
        handle.seek(0)
        number, offset = 0, 0
        while True:
            line = handle.readline(MAX_RECORD_BYTES + 1)
            if not line:
                return
            number += 1
            if not line.endswith(b"\n"):
                if len(line) > MAX_RECORD_BYTES:
                    raise ResultsFileError(
                        f"{self.path}:{number}: a line longer than {MAX_RECORD_BYTES // 2**20} MiB "
                        f"({excerpt(line[:60].decode('utf-8', 'replace'))}) is not a game record; "
                        "is this a boardzoo results file?")
                try:
                    json.loads(line)
                except (ValueError, RecursionError):
                    pass
                else:  # complete JSON without its newline: a record, or somebody else's data
                    self._take(line, number)
                    handle.write(b"\n")
                    return
                if not (line.startswith(RECORD_START) or RECORD_START.startswith(line)):
                    raise ResultsFileError(
                        f"{self.path}: not a boardzoo results file (its line {number} is "
                        f"{excerpt(line.decode('utf-8', 'replace'))!r}); choose another file")
                # A write that was interrupted: cut it off, that game is played again.
                handle.truncate(offset)
                handle.flush()
                os.fsync(handle.fileno())
                self.notes.append(f"{self.path}:{number}: dropped an unfinished record (an interrupted write)")
                return
            offset += len(line)
            self._take(line, number)

    def _take(self, line: bytes, number: int) -> None:
        if not line.strip():
            return
        where = f"{self.path}:{number}"
        record, problem = parse_record(line)
        if problem is None:
            problem = self.check(record)
            if problem is not None:
                raise ResultsFileError(f"{where}: {problem}; choose another file (it is left as it is)")
        if problem is not None:
            if number == 1:
                raise ResultsFileError(f"{self.path}: not a boardzoo results file (line 1: {problem}); "
                                       "choose another file")
            raise ResultsFileError(f"{where}: not a valid game record: {problem}; fix or delete that line "
                                   "(nothing in the file was changed)")
        key = self.key(record)
        if key in self.records:
            self.notes.append(f"{where}: game {key} is already recorded on an earlier line; the first record stands")
            return
        self.records[key] = record

    # --- writing -------------------------------------------------------------------------
    def append(self, record: dict) -> None:
        """Write one finished game: one line, flushed now, on the disk within a second."""
        problem = record_problem(record)
        if problem is not None:  # a bug in the code that made it, not bad input
            raise AssertionError(f"refusing to write an invalid game record: {problem}")
        line = (json.dumps(record) + "\n").encode("utf-8")
        handle = self._file
        assert handle is not None, "append() needs an open ledger"
        try:
            handle.write(line)
            handle.flush()
            if time.monotonic() - self._synced > FSYNC_SECONDS:
                os.fsync(handle.fileno())
                self._synced = time.monotonic()
        except OSError as error:
            raise ResultsFileError(
                f"cannot write to {self.path}: {error.strerror or error}; the games recorded so far are "
                "kept, and the same command resumes once there is room") from None
        self.records.setdefault(self.key(record), record)

    def close(self) -> None:
        handle, self._file = self._file, None
        if handle is None:
            return
        try:
            handle.flush()
            os.fsync(handle.fileno())
        except OSError:
            pass  # what could be written is written; append() reported the failure
        try:
            handle.close()  # closing releases the lock
        except OSError:
            pass  # the same failed write, tried once more by close


def _lock(handle: IO[bytes], path: str) -> None:
    try:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    except OSError:
        raise ResultsFileError(f"{path} is in use by another boardzoo run; wait for it to finish or "
                               "choose another file") from None


def write_atomic(path: str, text: str | bytes) -> None:
    """Replace ``path`` by ``text`` (or bytes) all at once (temporary file, fsync, rename)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    write_atomic_with(path, lambda handle: handle.write(data))


def write_atomic_with(path: str, write: Callable[[IO[bytes]], Any]) -> None:
    """Replace ``path`` by what ``write(handle)`` writes to a binary file, all at once (a
    temporary file beside it, fsynced, renamed over it): readers see the old file or the
    new one, never part of one."""
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        # A temporary file is private (0600); the file it becomes gets the mode a plain
        # write would give it: the old file's, else the umask's.
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            mode = _NEW_FILE_MODE
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise ResultsFileError(f"cannot write {path}: {error.strerror or error}") from None
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        directory = os.open(folder, os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
