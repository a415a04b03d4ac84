"""Exceptions raised by boardzoo, each naming what was wrong and why."""

from __future__ import annotations


class BoardzooError(Exception):
    """Base class of boardzoo's own errors."""


class InvalidActionError(BoardzooError, ValueError):
    """An action that is not even a member of the action space (wrong type or range)."""


class IllegalActionError(BoardzooError, ValueError):
    """An action of the action space that the rules forbid in the current position."""

    def __init__(self, env_name: str, agent: str, action: int, reason: str):
        self.env_name, self.agent, self.action, self.reason = env_name, agent, action, reason
        super().__init__(f"{env_name}: {agent} cannot play action {action}: {reason}")


class ResetNeededError(BoardzooError, RuntimeError):
    """The environment was used before ``reset()``."""


class SpecError(BoardzooError, ValueError):
    """A malformed or unknown agent/env spec string or parameter."""


class AgentError(BoardzooError, RuntimeError):
    """An agent failed while choosing a move (the message says which agent, seat and game)."""
