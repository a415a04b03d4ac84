"""A client for the Geister tournament server (protocol: ``docs/rules-geister.md``).

    boardzoo geister-client --host localhost --port 10000 --agent greedy --games 10

One game per connection: ``SET?`` -> ``SET:ABCD``; ``MOV?<board>`` -> ``MOV:A,NORTH``, each
acknowledged by ``OK``/``OKR``/``OKB`` or refused by ``NG``; the game ends with
``WON:``/``LST:``/``DRW:<board>``. Every board string is turned into the seat's
information set (a :class:`GeisterView`, the same model the env hands an agent), so any
boardzoo agent plays here exactly as it plays in the env.

Failures end the run with a :class:`ClientError` that says what happened: ``NG``, a
connection dropped mid-game, a malformed line, silence longer than ``timeout``, or a server
that kept refusing connections through every retry. Nothing loops on a bad move: an ``NG``
ends the run.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from boardzoo.agents import expand, make
from boardzoo.agents.base import Agent
from boardzoo.arena import SEATS
from boardzoo.games.geister import (
    MAX_TURNS_LIMIT,
    GeisterState,
    GeisterView,
    HiddenColours,
    moves_from_boards,
    parse_red,
)
from boardzoo.geister_client.connection import MAX_RETRIES, MAX_TIMEOUT, ClientError, connect
from boardzoo.geister_client.game import GameRecord, GameTracker, play_game
from boardzoo.ledger import Ledger
from boardzoo.values import seconds, whole


def check_settings(port: int, games: int, max_turns: int, retries: int, timeout: float) -> None:
    """Refuse settings the client cannot keep, before connecting."""
    for name, value, low, high in (("--port", port, 1, 65535), ("--games", games, 1, 10**6),
                                   ("--max-turns", max_turns, 1, MAX_TURNS_LIMIT),
                                   ("--retries", retries, 0, MAX_RETRIES)):
        whole(name, value, low, high, error=ClientError)
    seconds("--timeout", timeout, MAX_TIMEOUT, error=ClientError)


#: The note of a game whose boards no legal moves lead through: the server's fault, an error.
BROKEN_RULES = "the server's game does not follow the rules"


def arena_record(game: GameRecord, number: int, agent_spec: str, server: str, base_seed: int, seed: int,
                 max_turns: int) -> dict:
    """One game as an arena record (:mod:`boardzoo.ledger`'s schema), so that results files
    of tournament games are read, summed up and replayed (``boardzoo serve``) like the
    arena's: agent A is ours, B the program behind ``server``; both seats' moves are
    rebuilt from the boards we received (:func:`moves_from_boards`). A game whose moves
    cannot be rebuilt (the final board hides colours, a clock ended it early, or the
    boards break the rules) has none, and its ``note`` says why. The extra fields keep
    what the server said: its ``verdict`` and ``ruled``, our ``captured`` colours and every
    ``board``."""
    first = game.seat == "first"
    ours = SEATS[0] if first else SEATS[1]
    moves: list[list[int]] = []
    note = ""
    if game.placement is None:
        note = "the game ended before the placements"
    else:
        try:
            moves = moves_from_boards(first, game.placement, game.actions, game.boards, game.board, max_turns)
        except HiddenColours as error:
            note = str(error)
        except ValueError as error:
            note = f"{BROKEN_RULES}: {error}"
    winner = {"won": "a", "lost": "b", "draw": None}[game.result]
    theirs = SEATS[1] if first else SEATS[0]
    record = {
        "game": number, "env": f"geister_v0:max_turns={max_turns}", "a": agent_spec, "b": f"server {server}",
        "base_seed": base_seed, "seed": seed, "seat_of_a": ours, "first_mover": "a" if first else "b",
        "winner": winner, "winner_seat": None if winner is None else ours if winner == "a" else theirs,
        "returns": {"a": 0.0 if winner is None else 1.0 if winner == "a" else -1.0,
                    "b": 0.0 if winner is None else -1.0 if winner == "a" else 1.0},
        "plies": len(moves), "moves": moves, "decision_seconds": {"a": game.seconds, "b": []},
        "truncated": game.result == "draw" and not game.ruled, "forfeit": None, "scores": None,
        "server": server, "verdict": game.result, "ruled": game.ruled, "captured": game.captured,
        "boards": [*game.boards, game.board],
    }
    if note:
        record["note"] = f"no moves: {note}"
    if expand(agent_spec) != agent_spec:
        record["presets"] = {"a": expand(agent_spec)}
    return record


def _client_record(record: dict) -> str | None:
    """Why a valid results record is not a tournament client's, or None."""
    if "server" not in record:
        return (f"game {record['game']} is an arena game ({record['a']} vs {record['b']}), not one of "
                "geister-client's")
    return None


def run(host: str, port: int, agent_spec: str, games: int, red: str | None = None, seed: int | None = None,
        max_turns: int = 300, retries: int = 8, backoff: float = 0.2, timeout: float = 60.0,
        out: Callable[[str], None] = print, log: Callable[[str], None] = lambda line: None,
        results: str | None = None) -> list[GameRecord]:
    """Play ``games`` games, one connection each; print one line per game. With
    ``results``, each game is appended to that results file as it ends
    (:func:`arena_record`), after the games already there."""
    check_settings(port, games, max_turns, retries, timeout)
    if red is not None:
        try:
            parse_red(red)  # a clear error before connecting
        except ValueError as error:
            raise ClientError(str(error)) from None
    if seed is None:  # drawn once and recorded, so that our side of every game can be played again
        seed = random.SystemRandom().randrange(2**32)
    agent = make(agent_spec, seed=seed)
    first = GeisterView(GeisterState(max_turns), 0)
    try:
        agent.check_once(first)
    except ValueError as error:
        raise ClientError(f"--agent {agent_spec}: {error}") from None
    agent.warm_up(first)  # before the server's clock runs
    ledger = None
    if results is not None:
        ledger = Ledger(results, key=lambda record: record["game"], check=_client_record)
        ledger.open()
    try:
        return _play(host, port, agent, agent_spec, games, red, seed, max_turns, retries, backoff, timeout, out,
                     log, ledger)
    finally:
        if ledger is not None:
            ledger.close()


def _play(host: str, port: int, agent: Agent, agent_spec: str, games: int, red: str | None, seed: int,
          max_turns: int, retries: int, backoff: float, timeout: float, out: Callable[[str], None],
          log: Callable[[str], None], ledger: Ledger | None) -> list[GameRecord]:
    seeds = random.Random(seed)
    numbers = [record["game"] for record in ledger.records.values()] if ledger is not None else []
    first_number = 1 + max(numbers, default=-1)  # after the games already in the results file
    records = []
    for number in range(1, games + 1):
        game_seed = seeds.randrange(2**32)
        agent.reset(game_seed)
        connection = connect(host, port, retries, backoff, timeout)
        try:
            record = play_game(connection, agent, red, max_turns, log)
        finally:
            connection.close()
        records.append(record)
        if record.final is not None:
            agent.end_of_game(record.final, 0)
        if ledger is not None:
            entry = arena_record(record, first_number + number - 1, agent_spec, f"{host}:{port}", seed, game_seed,
                                 max_turns)
            ledger.append(entry)
            if BROKEN_RULES in entry.get("note", "") and not record.ruled:
                raise ClientError(f"game {number}: {entry['note']} (the game is recorded in {ledger.path}, "
                                  "without its moves)")
        extra = f", captured {'/'.join(record.captured)}" if record.captured else ""
        if record.ruled:
            extra += f", the server's ruling: {record.ruled}"
        out(f"game {number}: {record.result} ({record.seat} mover, {record.moves} moves{extra})")
    return records


__all__ = ["ClientError", "GameRecord", "GameTracker", "check_settings", "play_game", "run"]
