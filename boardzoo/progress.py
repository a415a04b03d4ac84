"""Progress of long jobs -- arena runs, experiments, solving, training -- shown one way.

On a terminal: tqdm's bar when tqdm is installed (``pip install 'boardzoo[progress]'``;
the ``rl`` extra brings it too), otherwise one plain line rewritten in place. Not on a
terminal (a log file, a pipe, a CI job): a plain line at most once a minute and one when
the job ends, so a log shows how far a run got without a flood of carriage returns. The core needs nothing
beyond the standard library for either.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

#: Seconds between the plain lines written when the output is not a terminal.
LOG_EVERY = 60.0
#: Seconds between redraws of the plain in-place line (a bar needs no more).
REDRAW_EVERY = 0.2


def _tqdm_class() -> Any:
    try:
        from tqdm import tqdm
    except ImportError:  # the optional extra is not installed: the plain line stands in
        return None
    return tqdm


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


class ProgressBar:
    """How far a job of ``total`` steps (None: unknown) has come.

    ``interactive``: None decides by whether ``stream`` is a terminal; True draws a bar
    (or the in-place line), False writes the occasional plain line. ``leave=False``
    wipes the bar when it closes (for a status line, such as solve's). ``plain=True``
    keeps tqdm out even when it is installed (tests compare both ways).
    """

    def __init__(self, total: int | None, desc: str, unit: str, initial: int = 0,
                 stream: IO[str] | None = None, interactive: bool | None = None, leave: bool = True,
                 plain: bool = False, log_every: float = LOG_EVERY):
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.total, self.desc, self.unit, self.n, self.initial = total, desc, unit, initial, initial
        self.leave, self.log_every = leave, log_every
        self.status = ""
        self.start = time.monotonic()
        self._drawn_at = -float("inf")
        self._logged_at = self.start
        self._drawn = self._logged = False
        tqdm = None if plain or not self.interactive else _tqdm_class()
        self._bar = None if tqdm is None else tqdm(
            total=total, initial=initial, desc=desc, unit=f" {unit}", file=self.stream, leave=leave,
            dynamic_ncols=True)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def update(self, steps: int = 1, status: str | None = None) -> None:
        """``steps`` more done; ``status`` replaces the text after the count."""
        self.set(self.n + steps, status)

    def set(self, n: int, status: str | None = None) -> None:
        """``n`` done so far (for jobs that report a running count, like nodes searched)."""
        self.n = n
        if status is not None:
            self.status = status
        if self._bar is not None:
            if status is not None:
                self._bar.set_postfix_str(status, refresh=False)
            self._bar.update(n - self._bar.n)
            return
        now = time.monotonic()
        if self.interactive:
            if now - self._drawn_at >= REDRAW_EVERY or n == self.total:
                self.stream.write(f"\r{self.line(now)}\033[K")
                self.stream.flush()
                self._drawn_at, self._drawn = now, True
        elif now - self._logged_at >= self.log_every:
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()
            self._logged_at, self._logged = now, True

    def line(self, now: float | None = None) -> str:
        """The plain progress line: ``arena: 40/100 games [1m05s, about 1m38s left] a 22 b 18``;
        the time left is estimated from this run's pace (steps done before it started,
        ``initial``, took no time of this run)."""
        elapsed = (time.monotonic() if now is None else now) - self.start
        count = f"{self.n:,}" if self.total is None else f"{self.n:,}/{self.total:,}"
        timing = _duration(elapsed)
        if self.total and self.initial < self.n < self.total:
            timing += f", about {_duration(elapsed * (self.total - self.n) / (self.n - self.initial))} left"
        return f"{self.desc}: {count} {self.unit} [{timing}]" + (f" {self.status}" if self.status else "")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._drawn:
            self.stream.write("\n" if self.leave else "\r\033[K")
            self.stream.flush()
            self._drawn = False
        elif not self.interactive and (self._logged or self.n > self.initial):
            # the log ends with where the job stopped, even one too short for a line a minute
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._logged = False
