"""A bounded store of the browser's sessions (:class:`Store`): the oldest one is dropped
when it is full."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from boardzoo.errors import excerpt
from boardzoo.web.sessions import RequestError


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
                raise RequestError(f"no such session {excerpt(key)!r} (it ended, or the server restarted)", 404)
            self.items.move_to_end(key)
            return self.items[key]

    def remove(self, key: str) -> Any:
        with self.lock:
            if key not in self.items:
                raise RequestError(f"no such session {excerpt(key)!r}", 404)
            return self.items.pop(key)

    def discard(self, key: str) -> None:
        """Drop session ``key`` if it is kept (its client went away)."""
        with self.lock:
            dropped = self.items.pop(key, None)
        if dropped is not None:
            self.on_drop(dropped)

    def clear(self) -> None:
        """Drop every session (the server is stopping)."""
        with self.lock:
            dropped, self.items = list(self.items.values()), OrderedDict()
        for session in dropped:
            self.on_drop(session)
