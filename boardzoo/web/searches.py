"""Where the browser UI's agents think: a few search processes that the server can stop.

Every agent a request starts lives in one of :class:`SearchPool`'s processes, never in the
server's own. That is what makes each move's time limit a promise rather than a request:
a search that runs past :data:`MOVE_SECONDS` (``minimax:depth=10`` on Connect Four would
take minutes, whatever its spec says) is ended by killing its process, and the agent
forfeits the game. It also keeps the server answering while searches run (compiled
searches hold Python's GIL), lets a stopped watch or a client that went away end its
search at once, and bounds the CPU the server can be made to use: at most
``processes`` searches run at a time, at most :data:`MAX_WAITING` requests wait for one,
and a request beyond that gets a 503 at once.

A process that is killed takes the other agents it held with it: each is built again from
its spec and seed when next asked for a move (an agent's memory of the game so far, such
as a reused search tree, is lost; its moves stay legal).

The processes are started with ``spawn`` (no copy of the server's memory: the true
states of hidden-information games stay in the server) and ignore Ctrl-C; they end with
the server or when it disappears.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import signal
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from boardzoo.agents import Agent, AlphaBetaAgent, AlphaZeroAgent, MCTSAgent, MinimaxAgent
from boardzoo.errors import AgentError, BoardzooError, MoveTimeLimitError, ServerBusyError
from boardzoo.isolation import carry_out
from boardzoo.workers import leave_with_parent

#: The wall-clock limit on one move of an agent, in seconds, whatever its spec.
MOVE_SECONDS = 10.0
#: The limit on building and warming an agent up: the first use of the compiled engine
#: compiles it (tens of seconds, once per machine; later processes load it from a cache).
WARM_UP_SECONDS = 180.0
#: Requests that may wait for a search process, beyond those running; more get a 503.
MAX_WAITING = 8
#: Nodes of a search tree sent to the browser.
MAX_TREE_NODES = 400
#: How often a waiting request looks whether its time is up or its client is gone.
_POLL_SECONDS = 0.05


class Cancelled(BoardzooError):
    """A search was ended because nobody waits for it any more (a stopped watch, a
    closed page)."""


def search_view(agent: Agent) -> dict | None:
    """What the agent's last decision looked at: a search tree (MCTS, AlphaZero) with its
    root's children, or alpha-beta's expected line; None for agents that do not search."""
    stats = agent.stats
    if isinstance(agent, (MCTSAgent, AlphaZeroAgent)):
        tree = agent.tree_json(MAX_TREE_NODES)
        if tree is None:
            return None
        return {"kind": "tree", "tree": tree, "iterations": stats.get("iterations"),
                "seconds": stats.get("seconds"), "children": stats.get("children", []),
                # only PUCT and AlphaZero's search read priors; the others' are a uniform placeholder
                "priors": isinstance(agent, AlphaZeroAgent) or agent.policy_name == "puct"}
    if isinstance(agent, (MinimaxAgent, AlphaBetaAgent)) and stats:
        return {"kind": "line", "line": agent.principal_variation(), "value": stats.get("value"),
                "depth": stats.get("depth"), "nodes": stats.get("nodes"), "seconds": stats.get("seconds")}
    return None


# --- the search process ---------------------------------------------------------------------------------
def _serve(connection) -> None:
    """A search process: hold agents by key and answer one request at a time."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server handles Ctrl-C, and kills us
    threading.Thread(target=leave_with_parent, args=(os.getppid(),), daemon=True).start()
    from boardzoo.agents import make

    agents: dict[str, Agent] = {}
    while True:
        try:
            kind, key, *arguments = connection.recv()
        except (EOFError, OSError):
            return
        try:
            if kind == "drop":
                agents.pop(key, None)
                continue  # no answer: nobody waits for it
            if kind == "make":
                spec, seed = arguments
                agents[key] = make(spec, seed=seed)
                reply: tuple = ("ok",)
            else:
                agent = agents[key]
                action = carry_out(agent, kind, arguments)
                reply = ("ok", action, agent.stats, search_view(agent)) if kind == "act" else ("ok",)
        except BoardzooError as error:  # a bad spec or input: the server answers with a 4xx
            reply = ("refused", error)
        except ValueError as error:  # an option that does not fit the game (make, check), else a bug
            reply = ("refused", error) if kind in ("make", "check") else ("bug", traceback.format_exc())
        except Exception:
            reply = ("bug", traceback.format_exc())
        try:
            connection.send(reply)
        except (BrokenPipeError, OSError):
            return


# --- the server's side ----------------------------------------------------------------------------------
class _Process:
    """One search process as the server sees it: started on first use, killed when a
    search must end early, started afresh after that (``generation`` counts the kills: an
    agent built in an earlier generation is gone)."""

    def __init__(self, number: int):
        self.number = number
        self.lock = threading.Lock()  # one request at a time
        self.generation = 0
        self.hosted = 0  # agents that live here, for choosing the least loaded process
        self._process: Any = None
        self._connection: Any = None
        self._drops: list[str] = []
        self.closed = False

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child,), daemon=True,
                                        name=f"boardzoo-search-{self.number}")
        self._process.start()
        child.close()

    def kill(self) -> None:
        """End the process now; the caller holds :attr:`lock`."""
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
            self._connection.close()
            self.generation += 1
        self._process = self._connection = None
        self._drops.clear()

    def _end(self, error: BoardzooError) -> BoardzooError:
        """Kill the process and give the error to raise: ``error``, unless the server is
        stopping (then that is what the request is told)."""
        self.kill()
        return ServerBusyError("the server is stopping") if self.closed else error

    def close(self) -> None:
        """End the process for good, from any thread: a request waiting for it fails at
        once with a 503 (its thread sees :attr:`closed` and cleans up)."""
        self.closed = True
        if self.lock.acquire(blocking=False):
            try:
                self.kill()
            finally:
                self.lock.release()
        elif self._process is not None:
            self._process.kill()

    def drop(self, key: str) -> None:
        """Forget an agent, with the next request (this one may be busy with a move)."""
        self._drops.append(key)
        self.hosted -= 1

    def ask(self, request: tuple, seconds: float, cancelled: Callable[[], bool]) -> tuple:
        """Send ``request`` and wait for its answer; the caller holds :attr:`lock`. Past
        ``seconds``, or when ``cancelled()``, the process is killed."""
        if self.closed:
            raise ServerBusyError("the server is stopping")
        if self._process is None:
            self._start()
        while self._drops:
            self._connection.send(("drop", self._drops.pop()))
        self._connection.send(request)
        deadline = time.monotonic() + seconds
        while not self._connection.poll(_POLL_SECONDS):
            if cancelled():
                raise self._end(Cancelled("the search was stopped: nobody is waiting for it any more"))
            if time.monotonic() > deadline:
                raise self._end(MoveTimeLimitError(f"ran past the server's limit of {seconds:g} s"))
            if self.closed or not self._process.is_alive():
                code = self._process.exitcode
                raise self._end(AgentError(f"the search process ended (exit code {code}), perhaps out of memory"))
        try:
            return self._connection.recv()
        except (EOFError, OSError):
            raise self._end(AgentError("the search process ended while answering, perhaps out of memory")) from None


class SearchPool:
    """The server's search processes (see the module docstring)."""

    def __init__(self, processes: int = 2, waiting: int = MAX_WAITING, move_seconds: float = MOVE_SECONDS):
        if not 1 <= processes <= 64:
            raise ValueError(f"search processes must be from 1 to 64, got {processes}")
        self.move_seconds = move_seconds
        self.capacity = processes + waiting
        self._processes = [_Process(number) for number in range(processes)]
        self._admitted = 0
        self._lock = threading.Lock()

    @contextmanager
    def admit(self):
        """A request's turn at the pool, or :class:`ServerBusyError` when every search
        process is busy and :data:`MAX_WAITING` requests wait already."""
        with self._lock:
            if self._admitted >= self.capacity:
                raise ServerBusyError(f"the server is busy: {len(self._processes)} searches are running and "
                                      f"{self.capacity - len(self._processes)} wait; try again in a few seconds")
            self._admitted += 1
        try:
            yield
        finally:
            with self._lock:
                self._admitted -= 1

    def host(self, spec: str, seed: int | None, cancel: threading.Event | None = None) -> HostedAgent:
        """A stand-in for agent ``spec`` living in the least loaded process; setting
        ``cancel`` ends its search (see :attr:`HostedAgent.cancel`)."""
        with self._lock:
            process = min(self._processes, key=lambda p: p.hosted)
            process.hosted += 1
        return HostedAgent(self, process, spec, seed, cancel)

    def release(self, process: _Process, key: str) -> None:
        """Agent ``key`` of ``process`` is not needed any more."""
        with self._lock:
            process.drop(key)

    def close(self) -> None:
        """Kill every search process (the server is stopping): waiting requests fail."""
        for process in self._processes:
            process.close()


class HostedAgent(Agent):
    """Agent ``spec`` living in a search process: it acts, checks, warms up and resets
    like the agent itself, each move within the pool's time limit. ``search`` is the
    search view of its last move (:func:`search_view`), computed over there."""

    name = "hosted"

    def __init__(self, pool: SearchPool, process: _Process, spec: str, seed: int | None,
                 cancel: threading.Event | None = None):
        super().__init__(seed)
        self.pool, self.process, self.spec, self.seed = pool, process, spec, seed
        self.key = secrets.token_hex(8)
        self.search: dict | None = None
        self._generation = -1  # the process generation the agent was built in
        self._reset_seed: int | None = None
        #: Set to end the agent's current search (and keep it from starting another).
        self.cancel = cancel if cancel is not None else threading.Event()
        self._closed = False

    def _ask(self, request: tuple, seconds: float) -> tuple:
        with self.process.lock:
            if self.cancel.is_set():
                raise Cancelled("the search was stopped: nobody is waiting for it any more")
            if self._generation != self.process.generation:
                # new, or its process was killed since: build it there (again)
                self._call(("make", self.key, self.spec, self.seed), WARM_UP_SECONDS)
                self._generation = self.process.generation
                if self._reset_seed is not None:
                    self._call(("reset", self.key, self._reset_seed), WARM_UP_SECONDS)
            return self._call(request, seconds)

    def _call(self, request: tuple, seconds: float) -> tuple:
        reply = self.process.ask(request, seconds, self.cancel.is_set)
        if reply[0] == "refused":
            raise reply[1]
        if reply[0] == "bug":
            raise RuntimeError(f"agent {self.spec} failed in its search process:\n{reply[1]}")
        return reply

    def reset(self, seed: int | None = None) -> None:
        self._reset_seed = seed
        self._ask(("reset", self.key, seed), WARM_UP_SECONDS)

    def check(self, model) -> None:
        self._ask(("check", self.key, model), WARM_UP_SECONDS)

    def warm_up(self, model) -> None:
        self._ask(("warm_up", self.key, model), WARM_UP_SECONDS)

    def act(self, observation: dict, model) -> int:
        _, action, self.stats, self.search = self._ask(("act", self.key, observation, model), self.pool.move_seconds)
        return action

    def close(self) -> None:
        """Stop its search, if one runs, and forget the agent in its process."""
        if not self._closed:
            self._closed = True
            self.cancel.set()
            self.pool.release(self.process, self.key)
