"""How long the road is from an agent spec on the command line to its first move, and
what is done again and again on the way: the walk the architecture page reports.

    python tools/spec_walk.py
    python tools/spec_walk.py arena connect_four_v0 mcts:iterations=20 random --games 2 --seed 0

Runs ``boardzoo`` in this process under a profiler hook and prints, up to the end of the
first move an agent makes: the calls of boardzoo's own functions, the changes of file
from caller to callee among them, and the files they touch; then, over the whole run,
how often the spec strings were split, agents checked their game, a search was built and
an env was reset (before the first move, and in all).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections import Counter
from pathlib import Path

import boardzoo
from boardzoo.cli import main

DEFAULT = ["arena", "connect_four_v0", "mcts:iterations=20", "random", "--games", "2", "--seed", "0"]
PACKAGE = str(Path(boardzoo.__file__).resolve().parent)
#: Functions counted over the run: (label, function name, file name ending).
WATCHED = (("spec strings split", "split_spec", "spec.py"),
           ("agent checks of the game", "check", "agent.py"),
           ("searches built", "__init__", "search.py"),
           ("env resets", "reset", "aec.py"))


def walk(argv: list[str]) -> dict:
    calls = changes = 0
    files: set[str] = set()
    counts: Counter = Counter()
    before: dict[str, int] = {}
    first_move_done = False
    depth_of_act: list[int] = []
    depth = 0

    def hook(frame, event, arg):
        nonlocal calls, changes, first_move_done, depth
        if event not in ("call", "return"):
            return
        code = frame.f_code
        if not code.co_filename.startswith(PACKAGE):
            return
        if event == "return":
            depth -= 1
            if depth_of_act and depth == depth_of_act[0] and not first_move_done:
                first_move_done = True
                before.update(counts)
            return
        depth += 1
        for label, name, ending in WATCHED:
            if code.co_name == name and code.co_filename.endswith(ending):
                counts[label] += 1
        if first_move_done:
            return
        if code.co_name == "act" and "/agents/" in code.co_filename and not depth_of_act:
            depth_of_act.append(depth - 1)
        calls += 1
        files.add(code.co_filename)
        caller = frame.f_back
        if caller is not None and caller.f_code.co_filename.startswith(PACKAGE) \
                and caller.f_code.co_filename != code.co_filename:
            changes += 1

    sys.setprofile(hook)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = main(argv)
    finally:
        sys.setprofile(None)
    return {"status": status, "calls": calls, "changes": changes, "files": len(files), "before": before,
            "all": counts}


if __name__ == "__main__":
    argv = sys.argv[1:] or DEFAULT
    result = walk(argv)
    print(f"boardzoo {' '.join(argv)}  (exit {result['status']})")
    print(f"to the first move: {result['calls']} calls of boardzoo functions, {result['changes']} changes of file, "
          f"{result['files']} files")
    for label, _, _ in WATCHED:
        print(f"{label}: {result['before'].get(label, 0)} before the first move, {result['all'][label]} in all")
