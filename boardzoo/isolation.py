"""Agents in their own processes, for agent code you do not trust.

The threat model. In a normal run an agent is called in the process that holds the env,
so Python code in the agent *can* reach everything there: the true game state through
``gc.get_objects()``, stack frames, or module globals (``boardzoo.arena``'s worker cache).
Observations, infos, renders and the models boardzoo hands an agent reveal nothing
hidden, but that is a promise about boardzoo's code, not a wall against the agent's. For
agents you wrote or trust this is fine, and fastest.

With ``isolate=True`` (``boardzoo arena --isolate``, ``boardzoo experiment run --isolate``)
each agent runs in a process of its own, started with ``spawn`` (a fresh interpreter, not
a copy of the referee's memory). For every decision it receives exactly two things,
pickled: its observation and its seat's model (for hidden-information games the seat's
information set, which holds no hidden colour). It sends back an action and its search
statistics. The true state is never in its address space, so no introspection finds it.

What isolation does not do: limit the agent's CPU, memory or system calls, or keep it off
the file system and network. Run hostile code in a container or sandbox for that.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import traceback
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.errors import AgentError, SpecError
from boardzoo.workers import leave_with_parent

#: Seconds to wait for an agent process to leave (it may be in the middle of a move) before it is killed.
_GRACE = 2.0


def _serve(connection, spec: str, seed: int | None, cls: type[Agent] | None) -> None:
    """The agent process: build the agent, then answer requests until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the referee handles Ctrl-C
    threading.Thread(target=leave_with_parent, args=(os.getppid(),), daemon=True).start()
    try:
        _answer(connection, spec, seed, cls)
    except (BrokenPipeError, EOFError, OSError):
        pass  # the referee is gone: nobody is left to answer


#: What a referee asks of an agent in another process (here and the browser's search
#: processes): the agent's own methods, by name.
REQUESTS = ("reset", "warm_up", "check", "act")


def carry_out(agent: Agent, kind: str, arguments) -> int | None:
    """Request ``kind`` of :data:`REQUESTS` done on ``agent``: the action for ``act``."""
    if kind not in REQUESTS:
        raise ValueError(f"unknown request {kind!r}; requests are {', '.join(REQUESTS)}")
    result = getattr(agent, kind)(*arguments)
    return int(result) if kind == "act" else None


def _answer(connection, spec: str, seed: int | None, cls: type[Agent] | None) -> None:
    from boardzoo.agents import AGENTS, make

    try:
        if cls is not None:  # an agent registered by the user's code: unpickling imported it
            AGENTS.setdefault(cls.name, cls)
        agent = make(spec, seed=seed)
    except Exception as error:  # reported to the referee, which raises it there
        connection.send(("error", f"{type(error).__name__}: {error}"))
        return
    connection.send(("ready", agent.interactive))
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return  # the referee is gone
        kind = request[0]
        if kind == "close":
            return
        try:
            action = carry_out(agent, kind, request[1:])
            reply: tuple = ("ok", action, agent.stats if kind == "act" else {})
        except Exception as error:
            if kind == "check" and isinstance(error, ValueError):  # an option that does not fit the game
                reply = ("invalid", str(error))
            else:
                reply = ("error", f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=6)}")
        connection.send(reply)


class IsolatedAgent(Agent):
    """A stand-in for the agent ``spec`` running in its own process (see the module
    docstring); it acts, resets and reports ``stats`` like the agent itself."""

    name = "isolated"

    def __init__(self, spec: str, seed: int | None = None):
        super().__init__(seed)
        from boardzoo.agents import AGENTS, parse

        name, _, full = parse(spec)
        self.spec, self.full_spec = spec, full

        # The agent's class travels by reference (module and name), so agents that the
        # user's own code registered work here too; the agent itself is built over there.
        cls = AGENTS.get(name)
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, spec, seed, cls), daemon=True,
                                        name=f"boardzoo-agent {spec}")
        self._process.start()
        child.close()
        kind, detail = self._receive("starting")
        if kind == "error":
            self.close()
            raise AgentError(f"agent {spec} failed to start in its own process: {detail}")
        self.interactive = detail

    def _receive(self, doing: str) -> tuple:
        try:
            return self._connection.recv()
        except (EOFError, OSError):
            code = self._process.exitcode
            raise AgentError(f"the process of agent {self.spec} ended while {doing}"
                             + (f" (exit code {code})" if code is not None else "")) from None

    def _call(self, doing: str, *request: Any) -> tuple:
        try:
            self._connection.send(request)
        except (BrokenPipeError, OSError):
            raise AgentError(f"the process of agent {self.spec} is gone ({doing})") from None
        reply = self._receive(doing)
        if reply[0] == "invalid":
            raise SpecError(f"{self.spec}: {reply[1]}")
        if reply[0] == "error":
            raise AgentError(f"agent {self.spec} failed in its own process while {doing}: {reply[1]}")
        return reply

    def reset(self, seed: int | None = None) -> None:
        self._call("resetting", "reset", seed)

    def check(self, model) -> None:
        self._call("checking its options against the game", "check", model)

    def warm_up(self, model) -> None:
        self._call("warming up", "warm_up", model)

    def act(self, observation: dict, model) -> int:
        _, action, stats = self._call("choosing a move", "act", observation, model)
        self.stats = stats
        return action

    def close(self) -> None:
        """End the agent's process (it also ends by itself when this object is gone)."""
        try:
            self._connection.send(("close",))
        except (BrokenPipeError, OSError):
            pass
        self._connection.close()
        self._process.join(_GRACE)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(_GRACE)

    def __del__(self) -> None:
        try:
            if self._process.is_alive():
                self.close()
        except Exception:
            pass
