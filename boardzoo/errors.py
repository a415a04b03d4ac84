"""Exceptions raised by boardzoo, each naming what was wrong and why.

Every boardzoo exception survives a pickle round trip (worker processes send them to the
parent): an exception whose constructor takes other arguments than its message stores
them in ``args`` so that ``pickle`` can rebuild it.
"""

from __future__ import annotations


def excerpt(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters for a message, saying how long it was: no
    input is ever echoed back whole."""
    return text if len(text) <= width else f"{text[:width]}... ({len(text)} characters)"


def install_hint(extras: str) -> str:
    """How to install the optional ``extras`` (``"fast"``, ``"rl,fast"``), from the package
    index and from a checkout of the repository, for an error message."""
    return f'pip install "boardzoo[{extras}]" (from a checkout: pip install ".[{extras}]")'


class BoardzooError(Exception):
    """Base class of boardzoo's own errors: a bad input or an environment problem that the
    user can fix. The command line prints these as one line and exits with
    ``exit_status``; anything else is a bug."""

    #: The command line's exit status: 2 for a bad input (as argparse's usage errors).
    exit_status = 2


class BoardzooWarning(UserWarning):
    """Something worth a user's attention that is not an error: an unknown reset option,
    ``render()`` without a render mode, a forfeit by an illegal move. Plain text (no
    terminal colour codes), so it reads the same in a log file; filter it by this class."""


class InvalidActionError(BoardzooError, ValueError):
    """An action that is not even a member of the action space (wrong type or range)."""


class IllegalActionError(BoardzooError, ValueError):
    """An action of the action space that the rules forbid in the current position."""

    def __init__(self, env_name: str, agent: str, action: int, reason: str, label: str = ""):
        super().__init__(env_name, agent, action, reason, label)
        self.env_name, self.agent, self.action, self.reason = env_name, agent, action, reason
        #: The move as a player writes it (Connect Four's action 2 is column "3").
        self.label = label

    def __str__(self) -> str:
        written = f" ({self.label!r})" if self.label else ""
        return f"{self.env_name}: {self.agent} cannot play action {self.action}{written}: {self.reason}"


class ResetNeededError(BoardzooError, RuntimeError):
    """The environment was used before ``reset()`` (or after a reset that failed)."""


class SpecError(BoardzooError, ValueError):
    """A malformed or unknown agent/env spec string or parameter."""


class AgentError(BoardzooError, RuntimeError):
    """An agent failed while choosing a move (the message says which agent, seat and game)."""


class ResultsFileError(BoardzooError):
    """A results file (arena or experiment) that cannot be used: not a boardzoo results
    file, a bad record, another run's games, locked by another run, or not writable."""


class RunDirectoryError(BoardzooError):
    """A training run's directory that cannot be used as it is: not a directory, a lock
    that is not a file, a checkpoint that cannot be written (a full disk). Exit status 1:
    the machine refused, not the command."""

    exit_status = 1


class WorkerError(BoardzooError):
    """A worker process died (killed, out of memory) while games were being played."""


class BudgetError(BoardzooError):
    """A search ran out of its time budget before it had an answer (the solver's timeout)."""


class MoveTimeLimitError(AgentError):
    """An agent's move ran past the wall-clock limit that its referee enforces (the web
    server's): the referee stopped it, and the agent forfeits the game."""


class ServerBusyError(BoardzooError):
    """Every search slot of a server is taken and its queue is full (HTTP 503)."""


class PlayerQuit(BoardzooError):
    """The person at the terminal left the game (typed ``q``, or ended the input)."""
