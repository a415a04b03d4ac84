"""Replays in the browser: the results files of a folder indexed once (:class:`Replays`)
and a record played again from its seed, drawn position by position
(:func:`replay_record`), each bounded in what one request can read or draw."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from boardzoo.errors import BoardzooError, ResultsFileError, SpecError, excerpt
from boardzoo.files import open_regular
from boardzoo.ledger import parse_record, read_records
from boardzoo.values import whole
from boardzoo.web.sessions import SEATS, RequestError, drawing, drawn_env

#: One answer of a replay sends positions up to about this many characters of drawing
#: (at least one position); the page asks for the next part as the slider reaches it.
MAX_REPLAY_CHARACTERS = 2_000_000
#: A results file shown for replay lists at most this many games, and the server looks at
#: most this deep and this wide for files; it keeps the index of this many files.
MAX_REPLAY_GAMES = 20_000
MAX_REPLAY_FILES = 500
MAX_REPLAY_DEPTH = 4
MAX_REPLAY_INDEXES = 8
#: A file is listed when its first line, read up to this many bytes, is a game record
#: (a game's record is some kilobytes; listing reads no more than this of each file).
MAX_LISTED_FIRST_LINE = 2**20



class Replays:
    """Results files under one folder, chosen when the server starts: the only files the
    server reads. Paths come from requests relative to that folder and are checked to stay
    inside it. A file is read through once for its index (each game's summary and where
    its line starts), kept while the file is unchanged; a replay reads its game's line
    alone and draws a bounded part of its positions."""

    def __init__(self, root: str):
        try:
            self.root = Path(root).resolve(strict=True)
            if not self.root.is_dir():
                raise NotADirectoryError
        except (OSError, RuntimeError, ValueError):  # missing, a symlink loop, a null byte, not a folder
            raise SpecError(f"--replays {root!r}: not a folder that can be read") from None
        self._indexes: OrderedDict[Path, tuple[tuple[int, int], list, list[str]]] = OrderedDict()
        self._lock = threading.Lock()
        self._reading: dict[Path, threading.Lock] = {}

    def files(self) -> list[str]:
        found: list[str] = []
        self._walk(self.root, 0, found)
        return sorted(found)

    def _walk(self, folder: Path, depth: int, found: list[str]) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if len(found) >= MAX_REPLAY_FILES:
                return
            try:
                if entry.is_symlink():
                    continue  # a link could lead out of the folder
                if entry.is_file() and entry.suffix == ".jsonl" and _opens_with_a_game(entry):
                    found.append(entry.relative_to(self.root).as_posix())
                elif entry.is_dir() and depth < MAX_REPLAY_DEPTH and not entry.name.startswith("."):
                    self._walk(entry, depth + 1, found)
            except OSError:
                continue  # gone, or not ours to look at

    def path(self, relative: Any) -> Path:
        if not isinstance(relative, str) or not relative or len(relative) > 1000:
            raise RequestError("file must be a path relative to the replay folder, at most 1,000 characters")
        if "\0" in relative:
            raise RequestError("file must not hold a null character")
        try:
            candidate = (self.root / relative).resolve()
        except (OSError, RuntimeError):  # a name too long, a symlink loop
            raise RequestError(f"{excerpt(relative)!r} is not a results file (.jsonl) in the replay folder",
                               404) from None
        if relative.startswith("/") or not candidate.is_relative_to(self.root):
            raise RequestError(f"{excerpt(relative)!r} is outside the replay folder", 403)
        try:
            found = candidate.suffix == ".jsonl" and candidate.is_file()
        except OSError:
            found = False
        if not found:
            raise RequestError(f"{excerpt(relative)!r} is not a results file (.jsonl) in the replay folder", 404)
        return candidate

    def index(self, relative: str) -> tuple[Path, list, list[str]]:
        """``(path, [(offset, summary), ...], notes)`` of a results file, read once per
        change of the file (one reader at a time per file: concurrent requests share it)."""
        path = self.path(relative)
        with self._lock:
            reading = self._reading.setdefault(path, threading.Lock())
        with reading:
            try:
                stat = path.stat()
            except OSError as error:
                raise RequestError(f"{excerpt(relative)!r}: cannot read it ({error.strerror})", 404) from None
            key = (stat.st_mtime_ns, stat.st_size)
            with self._lock:
                known = self._indexes.get(path)
                if known is not None and known[0] == key:
                    self._indexes.move_to_end(path)
                    return path, known[1], known[2]
            try:
                entries, notes = read_records(str(path), MAX_REPLAY_GAMES, keep=_summary, quote=False)
            except ResultsFileError as error:
                raise RequestError(str(error).replace(str(path), relative), 422) from None
            entries.sort(key=lambda entry: entry[1]["game"])
            with self._lock:
                self._indexes[path] = (key, entries, notes)
                while len(self._indexes) > MAX_REPLAY_INDEXES:
                    self._indexes.popitem(last=False)
            return path, entries, notes

    def games(self, relative: str) -> dict:
        _, entries, notes = self.index(relative)
        return {"file": relative, "notes": notes,
                "games": [{"index": i, **summary} for i, (_, summary) in enumerate(entries)]}

    def replay(self, relative: str, index: Any, start: Any = 0) -> dict:
        path, entries, _ = self.index(relative)
        whole("game index", index, 0, len(entries) - 1, error=lambda message: RequestError(message, 404))
        offset, _ = entries[index]
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                line = handle.readline()
        except OSError as error:
            raise RequestError(f"{excerpt(relative)!r}: cannot read it ({error.strerror})", 404) from None
        record, problem = parse_record(line)
        if problem is not None:  # the file changed under the index
            raise RequestError(f"{excerpt(relative)!r} changed while it was read; ask again", 409)
        return replay_record(record, start)


def _opens_with_a_game(path: Path) -> bool:
    """Whether the file's first line is a whole game record: the list offers results
    files, not every ``.jsonl`` (a training run's history, say). Reads one bounded line."""
    try:
        with open_regular(str(path), "results file") as handle:
            line = handle.readline(MAX_LISTED_FIRST_LINE)
    except ValueError:  # gone, unreadable, or no longer a regular file
        return False
    return line.endswith(b"\n") and parse_record(line)[1] is None


def _summary(record: dict, offset: int) -> tuple[int, dict]:
    return offset, {"game": record["game"], "env": record["env"], "a": record["a"], "b": record["b"],
                    "seat_of_a": record["seat_of_a"], "winner": record["winner"], "plies": record["plies"],
                    "forfeit": record["forfeit"] is not None}


def replay_record(record: dict, start: Any = 0) -> dict:
    """A valid ``record`` (:func:`~boardzoo.ledger.record_problem` found nothing) played
    again from its seed (chance events come from the same seed; a record that disagrees is
    an error, not a guess): what every move was, announced from the spectator's side, and
    the drawings of the positions from ``start`` on, as many as
    :data:`MAX_REPLAY_CHARACTERS` allow (at least one). The last announcement says how the
    game ended."""
    try:
        env = drawn_env(record["env"])
        env.reset(seed=record["seed"])
    except BoardzooError as error:
        raise RequestError(f"the record's env cannot be made here: {error}", 422) from None
    raw = env.unwrapped
    names = {record["seat_of_a"]: f"a ({record['a']})",
             SEATS[1 - SEATS.index(record["seat_of_a"])]: f"b ({record['b']})"}
    announces = ["start"]
    frames: list[str] = []
    total = 0
    positions = 1 + record["plies"]
    whole("start", start, 0, positions - 1, note=" (a position of the game)",
          error=lambda message: RequestError(message, 404))

    def draw() -> None:
        nonlocal total
        number = len(announces) - 1
        if number >= start and (not frames or total < MAX_REPLAY_CHARACTERS):
            frames.append(drawing(env, None, animate=False))
            total += len(frames[-1])

    draw()
    for number, (player, action) in enumerate(record["moves"]):
        if player < 0:
            if number >= len(raw.history) or raw.history[number] != (player, action):
                raise RequestError(f"event {number}: the record's chance outcome {action} is not the one its seed "
                                   "gives; was it made by another version of the env?", 422)
            continue
        if not env.agents or env.agent_selection != SEATS[player]:
            raise RequestError(f"event {number}: the record has {SEATS[player]} move when it is not its turn", 422)
        try:
            said = raw.move_text(SEATS[player], action, None)
            env.step(action)
        except BoardzooError as error:
            raise RequestError(f"event {number}: {error}", 422) from None
        announces.append(f"{names[SEATS[player]]} {said}")
        draw()
    winner = record["winner"]
    ending = "draw" if winner is None else f"{winner} ({record[winner]}) wins"
    if record["forfeit"] is not None:
        ending += f" ({record['forfeit'].get('by', '?')} forfeited: {record['forfeit'].get('reason', '?')})"
    elif record["truncated"]:
        ending += " (the game was cut at its length limit)"
    announces[-1] += f" · game over: {ending}"
    return {"game": record["game"], "env": record["env"], "a": record["a"], "b": record["b"],
            "winner": winner, "result": ending, "announces": announces, "start": start, "frames": frames}
