"""What the browser UI's server keeps: games a person plays, arena runs being watched, and
replays of results files. No web framework here (the routes are in :mod:`boardzoo.web.app`),
so these parts are tested on their own.

Everything a request can ask for is bounded: which agents may play (none that loads a file
or needs a terminal) and with what budgets, how many games and runs are kept, how large a
board may be drawn, how many games a replayed file may list. A hidden-information game
shows a person their own seat's view only, and the search view of an agent playing
against them stays closed until the game ends (its tree would show which of its ghosts
may escape, that is, which are blue).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardzoo import arena
from boardzoo.agents import Agent, AlphaBetaAgent, MCTSAgent, MinimaxAgent, expand
from boardzoo.agents import make as make_agent
from boardzoo.envs import BoardGameEnv
from boardzoo.errors import BoardzooError, SpecError
from boardzoo.games.geister import GHOSTS, LETTERS, MOVE_ACTIONS, OWN_STEPS, RED_SETS, SIZE, TARGET, red_letters, to_own
from boardzoo.ledger import read_records
from boardzoo.spec import split_spec

SEATS = arena.SEATS
#: Agents a browser may choose: none loads a file (``sb3``, ``mcts:model=``) or needs a terminal.
WEB_AGENTS = ("random", "greedy", "policy", "mcts", "flatmc", "minimax", "alphabeta", "solver")
#: The largest budgets a browser may ask for (a move of the server's agent stays within seconds).
WEB_BUDGETS = {"iterations": 50_000, "playouts": 200_000, "depth": 10, "time": 10.0}
#: Parameters a browser may not set: they name files.
WEB_REFUSED = ("model", "path")
#: Kept at once: games being played, arena runs, and games an arena run plays.
MAX_PLAY_SESSIONS = 64
MAX_WATCH_SESSIONS = 8
MAX_WATCH_GAMES = 500
#: The largest drawing sent for one position, in characters.
MAX_SVG = 1_000_000
#: A results file shown for replay lists at most this many games, and the server looks at
#: most this deep and this wide for files.
MAX_REPLAY_GAMES = 20_000
MAX_REPLAY_FILES = 500
MAX_REPLAY_DEPTH = 4
#: Nodes of a search tree sent to the browser.
MAX_TREE_NODES = 400


class RequestError(BoardzooError):
    """A request the server refuses; ``status`` is its HTTP status (4xx)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def web_allowed(name: str) -> bool:
    """Whether a browser may choose agent or preset ``name``."""
    return split_spec(expand(name))[0] in WEB_AGENTS


def web_agent(spec: str, seed: int) -> Agent:
    """An agent a browser asked for (a preset by what it stands for), within
    :data:`WEB_AGENTS` and :data:`WEB_BUDGETS`."""
    name, params = split_spec(expand(spec))
    if name not in WEB_AGENTS:
        raise SpecError(f"agent {name!r} cannot play in the browser; choose one of {', '.join(WEB_AGENTS)}")
    for key, value in params.items():
        if key in WEB_REFUSED:
            raise SpecError(f"{spec}: parameter {key!r} names a file, which the browser may not choose")
        most = WEB_BUDGETS.get(key)
        if most is not None:
            try:
                number = float(value)
            except ValueError:
                continue  # the spec parser explains what it expected
            if number > most:
                raise SpecError(f"{spec}: {key} may be at most {most:g} in the browser, got {value}")
    return make_agent(spec, seed=seed)


def check_seed(seed: Any) -> int:
    """The arena's check of a base seed, and a bound on its size (a request's number)."""
    arena.check_seed(seed)
    if seed >= 2**63:
        raise RequestError(f"seed must be less than 2**63, got {seed!r}")
    return seed


def drawing(env: BoardGameEnv, view: str | None, animate: bool = True) -> str:
    picture = env.unwrapped.svg(view, animate)
    if len(picture) > MAX_SVG:
        raise RequestError(f"this board is too large to draw in the browser ({len(picture):,} characters of SVG)")
    return str(picture)


def move_choices(env: BoardGameEnv, seat: str) -> list[dict]:
    """The legal moves of ``seat`` with their written labels and, for Geister, what the
    board's clicks mean: the ghost and the square it reaches, in the seat's own frame."""
    raw = env.unwrapped
    game = raw.model(seat)
    choices = []
    for action in game.legal_actions():
        choice: dict[str, Any] = {"action": action, "label": game.action_label(action)}
        if game.game_name == "geister":
            choice.update(_geister_click(game, SEATS.index(seat), action))
        choices.append(choice)
    return choices


def _geister_click(game, seat: int, action: int) -> dict:
    if action >= MOVE_ACTIONS:
        return {"reds": red_letters(RED_SETS[action - MOVE_ACTIONS])}
    ghost, direction = action // 4, action % 4
    square = game.pos[GHOSTS * seat + ghost]
    x, y = to_own(seat, square) % SIZE, to_own(seat, square) // SIZE
    # One step in the seat's own frame: on the board, or beyond the corner for an escape.
    dx, dy = OWN_STEPS[direction]
    assert TARGET[seat][square][direction] is not None  # a legal move stays on the board or escapes
    return {"ghost": LETTERS[ghost], "from": [x, y], "to": [x + dx, y + dy]}


def search_view(agent: Agent) -> dict | None:
    """What the agent's last decision looked at: an MCTS tree with its root's children, or
    alpha-beta's expected line; None for agents that do not search."""
    stats = agent.stats
    if isinstance(agent, MCTSAgent):
        tree = agent.tree_json(MAX_TREE_NODES)
        if tree is None:
            return None
        return {"kind": "tree", "tree": tree, "iterations": stats.get("iterations"),
                "seconds": stats.get("seconds"), "children": stats.get("children", [])}
    if isinstance(agent, (MinimaxAgent, AlphaBetaAgent)) and stats:
        return {"kind": "line", "line": agent.principal_variation(), "value": stats.get("value"),
                "depth": stats.get("depth"), "nodes": stats.get("nodes"), "seconds": stats.get("seconds")}
    return None


def result_text(returns: dict[str, float], forfeit: dict | None, names: dict[str, str]) -> str:
    """``"player_0 (you) wins"`` from the final rewards of both seats."""
    if returns["player_0"] == returns["player_1"]:
        text = "draw"
    else:
        text = f"{names[max(SEATS, key=returns.__getitem__)]} wins"
    if forfeit is not None:
        text += f" ({names[forfeit['agent']]} forfeited: {forfeit['reason']})"
    return text


class PlaySession:
    """A person against an agent. ``human`` is the person's seat; the agent moves at once
    whenever it is its turn, so every call returns at the person's turn or at the end."""

    def __init__(self, env_spec: str, opponent: str, human: str, seed: int):
        if human not in SEATS:
            raise RequestError(f"seat must be player_0 or player_1, got {human!r}")
        self.env_spec, self.opponent_spec, self.human, self.seed = env_spec, opponent, human, check_seed(seed)
        self.env = arena.make_env(env_spec)
        env_seed, agent_seed, _ = arena.game_seeds(seed, 0)
        self.agent = web_agent(opponent, agent_seed)
        arena.check_agents([self.agent], self.env)
        arena.warm_up_agents([self.agent], self.env)  # so its first reply is not a long wait
        self.machine = SEATS[1 - SEATS.index(human)]
        self.names = {human: f"{human} (you)", self.machine: f"{self.machine} ({opponent})"}
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.search: dict | None = None
        self.returns: dict[str, float] = {}
        self.forfeit: dict | None = None
        self.env.reset(seed=env_seed)
        self.frames = [self._frame("the game begins")]
        self._machine_moves()

    @property
    def hidden(self) -> bool:
        return self.env.unwrapped.hidden_information

    def over(self) -> bool:
        return len(self.returns) == 2

    def result(self) -> str | None:
        return result_text(self.returns, self.forfeit, self.names) if self.over() else None

    def _frame(self, announce: str) -> dict:
        return {"svg": drawing(self.env, self.human if self.hidden and not self.over() else None),
                "announce": announce}

    def _play(self, seat: str, action: int) -> None:
        raw = self.env.unwrapped
        said = raw.move_text(seat, action, self.human)
        self.env.step(action)
        self._finish_turns()
        line = f"{self.names[seat]} {said}"
        self.log.append(line)
        self.frames.append(self._frame(line))
        if self.over():
            self.log.append(f"result: {self.result()}")

    def _finish_turns(self) -> None:
        """Take the finished seats' last turns (the AEC loop's ``step(None)``), keeping
        their final rewards."""
        env = self.env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            seat = env.agent_selection
            _, reward, _, _, info = env.last()
            self.returns[seat] = float(reward)
            if "forfeit" in info and seat == self.human:  # the reason as the person may read it
                self.forfeit = info["forfeit"]
            env.step(None)

    def _machine_moves(self) -> None:
        env = self.env
        while env.agents and env.agent_selection == self.machine:
            observation = env.observe(self.machine)
            action = self.agent.act(observation, env.unwrapped.model(self.machine))
            self.search = search_view(self.agent)
            self._play(self.machine, action)

    def move(self, action: Any) -> None:
        """The person's move: a legal action, or a RequestError saying why it is not one."""
        env = self.env
        if not env.agents:
            raise RequestError("the game is over", 409)
        if env.agent_selection != self.human:
            raise RequestError("it is not your turn", 409)
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(f"a move is an action number, got {action!r}")
        model = env.unwrapped.model(self.human)
        if not 0 <= action < model.num_actions or not model.is_legal(action):
            reason = model.explain_illegal(action) if 0 <= action < model.num_actions else "there is no such move"
            raise RequestError(f"that move is not legal here: {reason}", 422)
        self.frames = []
        self._play(self.human, action)
        self._machine_moves()

    def view(self) -> dict:
        """The state the browser shows: frames since the person's last move (the person's
        move and the replies, each drawn and announced), moves to choose from, the result."""
        env = self.env
        your_turn = bool(env.agents) and env.agent_selection == self.human
        result = self.result()
        # Against a hidden-information game the search would tell secrets until the end.
        search = self.search if not self.hidden or result is not None else None
        return {
            "env": self.env_spec, "opponent": self.opponent_spec, "you": self.human, "seed": self.seed,
            "game": env.unwrapped.model(self.human).game_name,
            "frames": self.frames, "your_turn": your_turn, "result": result, "log": self.log[-200:],
            "moves": move_choices(env, self.human) if your_turn else [],
            "search": search, "search_hidden": self.hidden and result is None and self.search is not None,
        }


class Stopped(Exception):
    """The watcher stopped an arena run."""


class WatchSession:
    """An arena run played in a thread of its own, one move at a time, for spectators: the
    newest position, the moves announced, the score so far."""

    def __init__(self, env_spec: str, spec_a: str, spec_b: str, games: int, seed: int, delay: float):
        if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_WATCH_GAMES:
            raise RequestError(f"games must be an int from 1 to {MAX_WATCH_GAMES}, got {games!r}")
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= 5:
            raise RequestError(f"delay must be a number of seconds from 0 to 5, got {delay!r}")
        self.env_spec, self.specs, self.games, self.seed = env_spec, {"a": spec_a, "b": spec_b}, games, check_seed(seed)
        self.delay = float(delay)
        self.env = arena.make_env(env_spec)
        self.agents = {"a": web_agent(spec_a, 0), "b": web_agent(spec_b, 0)}
        arena.check_agents(self.agents.values(), self.env)
        self.records: list[dict] = []
        self.log: deque[str] = deque(maxlen=40)
        self.frame = {"svg": drawing(self.env, None), "game": 0, "ply": 0}
        self.error: str | None = None
        self.stop_requested = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True, name="boardzoo-watch")
        self.thread.start()

    def _run(self) -> None:
        try:
            arena.warm_up_agents(self.agents.values(), self.env)
            for game in range(self.games):
                record = arena.play_game(self.env_spec, self.specs["a"], self.specs["b"], game, self.seed, self.env,
                                         self.agents, on_step=self._step, before_step=self._announce)
                with self.lock:
                    self.records.append(record)
                    winner = record["winner"]
                    self.log.append(f"game {game + 1}: " + ("draw" if winner is None else
                                                             f"{self.specs[winner]} ({winner}) wins"))
        except Stopped:
            pass
        except BoardzooError as error:
            self.error = str(error)

    def _announce(self, env: BoardGameEnv, seat: str, action: int) -> None:
        label = env.unwrapped.move_text(seat, action, None)
        with self.lock:
            self.log.append(f"{seat} {label}")

    def _step(self, env: BoardGameEnv) -> None:
        if self.stop_requested:
            raise Stopped
        raw = env.unwrapped
        with self.lock:
            self.frame = {"svg": drawing(env, None), "game": len(self.records),
                          "ply": sum(1 for player, _ in raw.history if player >= 0)}
        if self.delay:
            time.sleep(self.delay)

    def view(self) -> dict:
        with self.lock:
            summary = arena.summarize(self.records) if self.records else None
            return {"env": self.env_spec, "a": self.specs["a"], "b": self.specs["b"], "games": self.games,
                    "finished": len(self.records), "running": self.thread.is_alive(), "frame": self.frame,
                    "log": list(self.log), "summary": summary, "error": self.error}

    def stop(self) -> None:
        self.stop_requested = True


class Store:
    """Sessions by id, the least recently used dropped first when too many are kept."""

    def __init__(self, limit: int, on_drop: Callable[[Any], None] = lambda session: None):
        self.limit, self.on_drop = limit, on_drop
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, session: Any) -> str:
        key = secrets.token_urlsafe(9)
        with self.lock:
            self.items[key] = session
            while len(self.items) > self.limit:
                _, dropped = self.items.popitem(last=False)
                self.on_drop(dropped)
        return key

    def get(self, key: str) -> Any:
        with self.lock:
            if key not in self.items:
                raise RequestError(f"no such session {key!r} (it ended, or the server restarted)", 404)
            self.items.move_to_end(key)
            return self.items[key]

    def remove(self, key: str) -> Any:
        with self.lock:
            if key not in self.items:
                raise RequestError(f"no such session {key!r}", 404)
            return self.items.pop(key)


class Replays:
    """Results files under one folder, chosen when the server starts: the only files the
    server reads. Paths come from requests relative to that folder and are checked to stay
    inside it."""

    def __init__(self, root: str):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise SpecError(f"--replays {root}: not a folder")

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
            if entry.is_symlink():
                continue  # a link could lead out of the folder
            if entry.is_file() and entry.suffix == ".jsonl":
                found.append(entry.relative_to(self.root).as_posix())
            elif entry.is_dir() and depth < MAX_REPLAY_DEPTH and not entry.name.startswith("."):
                self._walk(entry, depth + 1, found)

    def path(self, relative: Any) -> Path:
        if not isinstance(relative, str) or not relative or len(relative) > 1000:
            raise RequestError("file must be a path relative to the replay folder")
        candidate = (self.root / relative).resolve()
        if not candidate.is_relative_to(self.root) or relative.startswith("/"):
            raise RequestError(f"{relative!r} is outside the replay folder", 403)
        if candidate.suffix != ".jsonl" or not candidate.is_file():
            raise RequestError(f"{relative!r} is not a results file (.jsonl) in the replay folder", 404)
        return candidate

    def games(self, relative: str) -> dict:
        records, notes = read_records(str(self.path(relative)), MAX_REPLAY_GAMES)
        return {"file": relative, "notes": notes,
                "games": [{"index": i, "game": r["game"], "env": r["env"], "a": r["a"], "b": r["b"],
                           "seat_of_a": r["seat_of_a"], "winner": r["winner"], "plies": r["plies"]}
                          for i, r in enumerate(records)]}

    def replay(self, relative: str, index: Any) -> dict:
        records, _ = read_records(str(self.path(relative)), MAX_REPLAY_GAMES)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(records):
            raise RequestError(f"game index must be an int from 0 to {len(records) - 1}, got {index!r}", 404)
        return replay_record(records[index])


def replay_record(record: dict) -> dict:
    """Every position of a recorded game, drawn from the spectator's side, with the move
    that led to it: the record's env from its seed, its moves played again (chance events
    come from the same seed; a record that disagrees is an error, not a guess)."""
    env = arena.make_env(record["env"])
    env.reset(seed=record["seed"])
    raw = env.unwrapped
    names = {record["seat_of_a"]: f"a ({record['a']})",
             SEATS[1 - SEATS.index(record["seat_of_a"])]: f"b ({record['b']})"}
    frames = [{"svg": drawing(env, None, animate=False), "announce": "start"}]
    for number, move in enumerate(record["moves"]):
        if not (isinstance(move, list) and len(move) == 2 and all(isinstance(x, int) for x in move)):
            raise RequestError(f"move {number} of the record is {move!r}, not [seat, action]", 422)
        player, action = move
        if player < 0:
            if number >= len(raw.history) or raw.history[number] != (player, action):
                raise RequestError(f"event {number}: the record's chance outcome {action} is not the one its seed "
                                   "gives; was it made by another version of the env?", 422)
            continue
        if not env.agents or env.agent_selection != SEATS[player]:
            raise RequestError(f"event {number}: the record has {SEATS[player]} move when it is not its turn", 422)
        said = raw.move_text(SEATS[player], action, None)
        try:
            env.step(action)
        except BoardzooError as error:
            raise RequestError(f"event {number}: {error}", 422) from None
        frames.append({"svg": drawing(env, None, animate=False), "announce": f"{names[SEATS[player]]} {said}"})
    return {"game": record["game"], "env": record["env"], "a": record["a"], "b": record["b"],
            "winner": record["winner"], "frames": frames}
