"""The tournament server's line protocol over one TCP connection: :class:`Connection`
(bounded lines, a timeout on silence) and :func:`connect` (retries with backoff), with
:class:`ClientError`, what every failure of the client is."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from boardzoo.errors import BoardzooError, excerpt


class ClientError(BoardzooError):
    """The tournament client could not go on; the message says why."""


#: The longest line the client accepts: protocol lines are about 52 bytes (``MOV?`` and a
#: 48-character board); anything much longer is not the protocol.
MAX_LINE = 256
#: Bounds of the command-line settings, checked before connecting.
MAX_TIMEOUT = 24 * 3600.0
MAX_RETRIES = 1000


def quoted(data: bytes | str) -> str:
    """A short, printable piece of what the server sent, for messages."""
    return excerpt(repr(data.decode("ascii", "replace") if isinstance(data, bytes) else data))


class Connection:
    """Lines over a TCP socket: CRLF on the wire, never an empty line. Each expected line
    has a deadline (``timeout`` seconds from when we start waiting for it: a server that
    drips bytes can't stretch it) and a maximum length; the buffer is scanned only where
    new bytes arrived."""

    def __init__(self, sock: socket.socket, timeout: float, max_line: int = MAX_LINE):
        self.sock, self.timeout, self.max_line = sock, timeout, max_line
        self.buffer = bytearray()
        self.scanned = 0  # bytes of the buffer known to hold no newline

    def read_line(self) -> str | None:
        """The next line without its CRLF; None when the server closed the connection."""
        deadline = time.monotonic() + self.timeout
        while True:
            end = self.buffer.find(b"\n", self.scanned)
            if end >= 0:
                break
            self.scanned = len(self.buffer)
            if len(self.buffer) > self.max_line:
                raise ClientError(f"the server sent a line longer than {self.max_line} bytes "
                                  f"(protocol lines are about 50): {quoted(bytes(self.buffer))}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClientError(f"the server sent no complete line within {self.timeout:g} s"
                                  + (f" (only {quoted(bytes(self.buffer))})" if self.buffer else ""))
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except TimeoutError:
                continue  # the deadline check above reports it
            except OSError as error:
                raise ClientError(f"the connection broke: {error}") from None
            if not chunk:
                if self.buffer.strip():
                    raise ClientError("the server closed the connection in the middle of a line: "
                                      f"{quoted(bytes(self.buffer))}")
                return None
            self.buffer += chunk
        if end > self.max_line:
            raise ClientError(f"the server sent a line longer than {self.max_line} bytes: "
                              f"{quoted(bytes(self.buffer[:end]))}")
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        self.scanned = 0
        try:
            return line.decode("ascii").rstrip("\r")
        except UnicodeDecodeError:
            raise ClientError(f"the server sent a line that is not ASCII: {quoted(line)}") from None

    def send_line(self, text: str) -> None:
        if not text or text != text.strip():
            raise ValueError(f"refusing to send an empty line or trailing spaces: {text!r}")
        try:
            self.sock.settimeout(self.timeout)
            self.sock.sendall(text.encode("ascii") + b"\r\n")
        except OSError as error:
            raise ClientError(f"could not send {text!r}: {error}") from None

    def close(self) -> None:
        self.sock.close()


def connect(host: str, port: int, retries: int, backoff: float, timeout: float,
            sleep: Callable[[float], None] = time.sleep) -> Connection:
    """Connect, retrying with exponential back-off while the server is not ready: it
    refuses connections for a moment between games, and a connection it accepted while
    closing the previous game is reset (or closed) before it says a word. So a
    connection counts only once the server's first bytes arrive."""
    delay = backoff
    last: Exception | None = None
    for attempt in range(retries + 1):
        sock = None
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
            if sock.recv(1, socket.MSG_PEEK):  # waits (up to timeout) for the game's first line
                return Connection(sock, timeout)
            last = ConnectionResetError("the server closed the connection before the game began")
        except TimeoutError:
            if sock is not None:  # connected, then silence: that is the server's problem, not a retry
                sock.close()
                raise ClientError(f"{host}:{port} accepted the connection but sent nothing within "
                                  f"{timeout:g} s") from None
            last = TimeoutError(f"no answer within {timeout:g} s")
        except OSError as error:  # refused, unreachable, reset
            last = error
        if sock is not None:
            sock.close()
        if attempt < retries:
            sleep(delay)
            delay = min(delay * 2, 5.0)
    raise ClientError(f"could not connect to {host}:{port} after {retries + 1} attempts: {last}")
