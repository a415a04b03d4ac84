"""What the browser UI's server keeps: games a person plays, arena runs being watched, and
replays of results files. No web framework here (the routes are in :mod:`boardzoo.web.app`),
so these parts are tested on their own.

Everything a request can ask for is bounded: which agents may play (none that loads a file
or needs a terminal) and with what budgets, how large a game may be, how long one move may
take and how many searches run at once (:mod:`boardzoo.web.searches`: the agents think in
processes the server can stop), how many games and runs are kept, how large a board may be
drawn and how much of a replay one answer sends. A hidden-information game shows a person
their own seat's view only, and the search view of an agent playing against them stays
closed until the game ends (its tree would show which of its ghosts may escape, that is,
which are blue); a game the person did not seed gets a fresh seed, told once it is over.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
import traceback
from collections import deque
from typing import Any

from boardzoo import arena, envs, values
from boardzoo.agents import expand
from boardzoo.envs import BoardGameEnv
from boardzoo.errors import BoardzooError, MoveTimeLimitError, SpecError
from boardzoo.games.geister import OWN_STEPS, red_letters
from boardzoo.spec import split_spec
from boardzoo.values import whole
from boardzoo.web.searches import Cancelled, HostedAgent, SearchPool

SEATS = arena.SEATS
#: Agents a browser may choose: none loads a file (``sb3``, ``mcts:model=``) or needs a terminal
#: (``alphazero`` and ``network`` play the networks shipped with boardzoo: ``weights=`` is refused).
WEB_AGENTS = ("random", "greedy", "policy", "mcts", "flatmc", "minimax", "alphabeta", "solver", "alphazero",
              "network")
#: The largest budgets a browser may ask for (a move of the server's agent stays within seconds;
#: ``time`` below the default move limit of 10 s, leaving room for a process's overhead).
WEB_BUDGETS = {"iterations": 50_000, "playouts": 200_000, "depth": 10, "time": 8.0}
#: Parameters a browser may not set: they name files.
WEB_REFUSED = ("model", "path", "weights")
#: ... but for the one value that names the network shipped with boardzoo (``model=shipped``).
SHIPPED_NETWORK = "shipped"
#: The largest games a browser may ask for, by the env's attribute: boards a page can
#: show, piles of pawns a person can count.
WEB_ENV_LIMITS = {"rows": 16, "cols": 16, "n_high": 10_000, "k": 100, "max_turns": 2_000}
#: Kept at once: games being played, arena runs, and games an arena run plays.
MAX_PLAY_SESSIONS = 32
MAX_WATCH_SESSIONS = 8
MAX_WATCH_GAMES = 500
#: The largest drawing sent for one position, in characters.
MAX_SVG = 1_000_000
#: The largest seed a request may give (numpy's seeds are 64-bit; JSON numbers beyond
#: 2**53 lose digits in a browser).
MAX_SEED = 2**53


class RequestError(BoardzooError):
    """A request the server refuses; ``status`` is its HTTP status (4xx)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def web_allowed(name: str) -> bool:
    """Whether a browser may choose agent or preset ``name``."""
    return split_spec(expand(name))[0] in WEB_AGENTS


def check_web_agent(spec: str) -> str:
    """``spec`` when a browser may ask for it: an agent of :data:`WEB_AGENTS` (a preset by
    what it stands for) within :data:`WEB_BUDGETS`, naming no file; else SpecError. The
    agent itself is built in a search process."""
    name, params = split_spec(expand(spec))
    if name not in WEB_AGENTS:
        raise SpecError(f"agent {name!r} cannot play in the browser; choose one of {', '.join(WEB_AGENTS)}")
    for key, value in params.items():
        if key in WEB_REFUSED and value != SHIPPED_NETWORK:
            raise SpecError(f"{spec}: parameter {key!r} names a file, which the browser may not choose")
        most = WEB_BUDGETS.get(key)
        if most is not None:
            try:
                number = float(value)
            except ValueError:
                continue  # the spec parser explains what it expected
            if number > most:
                raise SpecError(f"{spec}: {key} may be at most {most:g} in the browser, got {value}")
    return spec


def drawn_envs() -> list[str]:
    """The envs the browser can show: those that draw SVG (a game with only the generic
    env renders as text)."""
    return [name for name in envs.ENVS if "svg" in envs.env_module(name).raw_env.metadata["render_modes"]]


def drawn_env(spec: str) -> BoardGameEnv:
    """Env ``spec``, refused (SpecError) when it draws no pictures."""
    name = spec.partition(":")[0].strip()
    if name in envs.ENVS and name not in drawn_envs():
        raise SpecError(f"{name} draws no pictures, so the browser cannot show it; it shows "
                        f"{', '.join(drawn_envs())}")
    return envs.make(spec)


def web_env(spec: str) -> BoardGameEnv:
    """The env a browser asked for, drawn, within :data:`WEB_ENV_LIMITS`."""
    env = drawn_env(spec)
    for attribute, most in WEB_ENV_LIMITS.items():
        value = getattr(env.unwrapped, attribute, None)
        if isinstance(value, int) and value > most:
            shown = "n" if attribute == "n_high" else attribute
            raise SpecError(f"{spec}: {shown} may be at most {most:,} in the browser, got {value:,}")
    return env


def check_seed(seed: Any) -> int:
    """A request's seed: an int from 0 to :data:`MAX_SEED`, or None for a fresh one."""
    if seed is None:
        return secrets.randbelow(MAX_SEED)
    return whole("seed", seed, 0, MAX_SEED, note=" (or left out for a fresh one)", error=RequestError)


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
    shape = game.shape
    if action >= shape.move_actions:
        return {"reds": red_letters(shape.red_sets[action - shape.move_actions])}
    ghost, direction = action // 4, action % 4
    square = game.pos[shape.ghosts * seat + ghost]
    own = shape.to_own(seat, square)
    x, y = own % shape.cols, own // shape.cols
    # One step in the seat's own frame: on the board, or beyond the corner for an escape.
    dx, dy = OWN_STEPS[direction]
    assert shape.target[seat][square][direction] is not None  # a legal move stays on the board or escapes
    return {"ghost": shape.letters[ghost], "from": [x, y], "to": [x + dx, y + dy]}


class Stopped(Exception):
    """The watcher stopped an arena run."""


def result_text(returns: dict[str, float], forfeit: dict | None, names: dict[str, str]) -> str:
    """``"player_0 (you) wins"`` from the final rewards of both seats."""
    if returns["player_0"] == returns["player_1"]:
        text = "draw"
    else:
        text = f"{names[max(SEATS, key=returns.__getitem__)]} wins"
    if forfeit is not None:
        text += f" ({names[forfeit['agent']]} forfeited: {forfeit['reason']})"
    return text


def forfeit_on_time(env: BoardGameEnv, seat: str, error: MoveTimeLimitError) -> None:
    reason = f"its move {error}, so it loses"
    env.unwrapped.forfeit(seat, reason, public=reason)


class PlaySession:
    """A person against an agent. ``human`` is the person's seat; the agent moves at once
    whenever it is its turn, so every call returns at the person's turn or at the end.
    ``seed`` None draws a fresh one (told by :meth:`view` once the game is over, since it
    would tell the agent's choices, Geister's red ghosts among them)."""

    def __init__(self, env_spec: str, opponent: str, human: str, seed: int | None, pool: SearchPool,
                 cancel: threading.Event | None = None):
        if human not in SEATS:
            raise RequestError(f"seat must be player_0 or player_1, got {human!r}")
        self.seed_given = seed is not None
        self.env_spec, self.opponent_spec, self.human, self.seed = env_spec, opponent, human, check_seed(seed)
        self.env = web_env(env_spec)
        env_seed, agent_seed, _ = arena.game_seeds(self.seed, 0)
        self.agent: HostedAgent = pool.host(check_web_agent(opponent), agent_seed, cancel)
        try:
            self.machine = SEATS[1 - SEATS.index(human)]
            self.env.reset(seed=env_seed)  # checked on this game's own start (Nim's pile, say), not another's
            start = self.env.unwrapped.model(self.machine)
            arena.check_agents([self.agent], self.env, start)
            arena.warm_up_agents([self.agent], self.env, start)  # so its first reply is not a long wait
            self.names = {human: f"{human} (you)", self.machine: f"{self.machine} ({opponent})"}
            self.lock = threading.Lock()
            self.log: list[str] = []
            self.search: dict | None = None
            self.returns: dict[str, float] = {}
            self.forfeit: dict | None = None
            self.frames = [self._frame("the game begins")]
            self._machine_moves()
        except BaseException:
            self.close()
            raise

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
        self._after(f"{self.names[seat]} {said}")

    def _after(self, line: str) -> None:
        self._finish_turns()
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
            try:
                action = self.agent.act(observation, env.unwrapped.model(self.machine))
            except MoveTimeLimitError as error:
                forfeit_on_time(env, self.machine, error)
                self._after(f"{self.names[self.machine]} {error}")
                return
            self.search = self.agent.search
            self._play(self.machine, action)

    def move(self, action: Any) -> None:
        """The person's move: a legal action, or a RequestError saying why it is not one."""
        env = self.env
        if not env.agents:
            raise RequestError("the game is over", 409)
        if env.agent_selection != self.human:
            raise RequestError("it is not your turn", 409)
        whole("a move's action", action, error=RequestError)
        model = env.unwrapped.model(self.human)
        if not 0 <= action < model.num_actions or not model.is_legal(action):
            reason = model.explain_illegal(action) if 0 <= action < model.num_actions else "there is no such move"
            raise RequestError(f"that move is not legal here: {reason}", 422)
        self.frames = []
        self._play(self.human, action)
        self._machine_moves()

    def close(self) -> None:
        """Stop the agent's search, if one runs, and let its process forget it."""
        self.agent.close()

    def view(self) -> dict:
        """The state the browser shows: frames since the person's last move (the person's
        move and the replies, each drawn and announced), moves to choose from, the result."""
        env = self.env
        your_turn = bool(env.agents) and env.agent_selection == self.human
        result = self.result()
        # Against a hidden-information game the search would tell secrets until the end.
        search = self.search if not self.hidden or result is not None else None
        return {
            "env": self.env_spec, "opponent": self.opponent_spec, "you": self.human,
            "your_pieces": None if env.unwrapped.seat_pieces is None else
            env.unwrapped.seat_pieces[SEATS.index(self.human)],
            "seed": self.seed if self.seed_given or result is not None else None,
            "game": env.unwrapped.model(self.human).game_name,
            "frames": self.frames, "your_turn": your_turn, "result": result, "log": self.log[-200:],
            "outcome": None if result is None else
            "draw" if self.returns[self.human] == self.returns[self.machine] else
            "won" if self.returns[self.human] > self.returns[self.machine] else "lost",
            "moves": move_choices(env, self.human) if your_turn else [],
            "search": search, "search_hidden": self.hidden and result is None and self.search is not None,
        }


class WatchSession:
    """An arena run played in a thread of its own, one move at a time, for spectators: the
    newest position, the moves announced, the score so far. Its agents think in the
    search pool, each move within its time limit (a move past it loses the game)."""

    def __init__(self, env_spec: str, spec_a: str, spec_b: str, games: int, seed: int | None, delay: float,
                 pool: SearchPool):
        whole("games", games, 1, MAX_WATCH_GAMES, error=RequestError)
        values.number("delay", delay, 0, 5, unit=" of seconds", error=RequestError)
        self.env_spec, self.specs, self.games, self.seed = env_spec, {"a": spec_a, "b": spec_b}, games, check_seed(seed)
        self.delay = float(delay)
        self.env = web_env(env_spec)
        self.agents = {"a": pool.host(check_web_agent(spec_a), 0), "b": pool.host(check_web_agent(spec_b), 0)}
        try:
            arena.check_agents(self.agents.values(), self.env)
        except BaseException:
            self.stop()
            raise
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
                                                             f"{self.specs[winner]} ({winner}) wins")
                                    + (f" ({record['forfeit']['by']} {record['forfeit']['reason']})"
                                       if record["forfeit"] else ""))
        except (Stopped, Cancelled):
            pass
        except BoardzooError as error:
            self.error = str(error)
        except Exception as error:  # a bug: the page says so, the server's log has the traceback
            self.error = f"internal error ({type(error).__name__}: {error}); the server's log has the details"
            traceback.print_exc(file=sys.stderr)
        finally:
            for agent in self.agents.values():
                agent.close()

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
                    "seed": self.seed, "finished": len(self.records), "running": self.thread.is_alive(),
                    "frame": self.frame, "log": list(self.log), "summary": summary, "error": self.error}

    def stop(self) -> None:
        """Stop the run now: a search that runs is ended, not waited for."""
        self.stop_requested = True
        for agent in self.agents.values():
            agent.close()
