"""One check for every typed value a person gives boardzoo -- on the command line, in a
spec, over the network: an int, a number, seconds.

    whole("mcts: nthr", nthr, low=0)            # mcts: nthr must be an int >= 0, got -1
    whole("--workers", workers, 1, 64)          # --workers must be an int from 1 to 64, got 0
    number("purple: hunt", hunt, 0, 1000)       # purple: hunt must be a number from 0 to 1000, got 'x'
    seconds("solver: time", time, most=3600)    # solver: time must be a positive number of seconds, ...

A bool is never a number here (``True`` is not one pawn), a float is never an int, and
a number is finite; NumPy's integers and floats are ints and numbers like Python's (a
seed drawn by a generator is one), and come back as Python's. ``error`` is the exception
class of the surface asking (a command line's, a server's), so every surface words the
same rule the same way; the value is quoted at most 40 characters long.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from boardzoo.errors import excerpt


def _bounds(low: float | None, high: float | None, show: Callable[[float], str]) -> str:
    if low is not None and high is not None:
        return f" from {show(low)} to {show(high)}"
    if low is not None:
        return f" >= {show(low)}"
    return f" <= {show(high)}" if high is not None else ""


def _refuse(error: Callable[[str], Exception], name: str, kind: str, bounds: str, note: str, value: Any) -> Exception:
    return error(f"{name} must be {kind}{bounds}{note}, got {excerpt(repr(value), 40)}")


def whole(name: str, value: Any, low: int | None = None, high: int | None = None, *, note: str = "",
          error: Callable[[str], Exception] = ValueError) -> int:
    """``value`` when it is an int within ``low``..``high`` (inclusive, each when given)."""
    plain = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None
    if plain is None or (low is not None and plain < low) or (high is not None and plain > high):
        raise _refuse(error, name, "an int", _bounds(low, high, lambda x: f"{x:,}"), note, value)
    return plain


def number(name: str, value: Any, low: float | None = None, high: float | None = None, *, unit: str = "",
           note: str = "", error: Callable[[str], Exception] = ValueError) -> float:
    """``value`` as a float when it is a finite number within ``low``..``high``;
    ``unit`` names what it counts (``" of seconds"``)."""
    plain = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else math.nan
    if not math.isfinite(plain) or (low is not None and plain < low) or (high is not None and plain > high):
        kind = f"a number{unit}" if high is not None else f"a finite number{unit}"
        raise _refuse(error, name, kind, _bounds(low, high, lambda x: f"{x:g}"), note, value)
    return plain


def seconds(name: str, value: Any, most: float | None = None, *,
            error: Callable[[str], Exception] = ValueError) -> float:
    """``value`` as a float when it is a positive, finite number of seconds, at most ``most``."""
    plain = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else math.nan
    if not 0 < plain < math.inf or (most is not None and plain > most):
        if most is None:
            raise _refuse(error, name, "a positive, finite number of seconds", "", "", value)
        raise _refuse(error, name, "a positive number of seconds", f", at most {most:g}", "", value)
    return plain
