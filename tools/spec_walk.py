"""How long the road is from an agent spec on the command line to its first move, and
what is done again and again on the way: the walk the architecture page reports.

    python tools/spec_walk.py
    python tools/spec_walk.py arena connect_four_v0 mcts:iterations=20 random --games 2 --seed 0

Runs ``boardzoo`` in this process under a profiler hook and prints, up to the first move
an agent starts (the search inside that move is not counted): the calls of boardzoo's
own functions, the changes of file from caller to callee among them, and the files they
touch; then how often the spec strings were split, MCTS checked its game, a search was
built and an env was reset, before the end of the first move and over the whole run.
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


def watched() -> dict:
    """The functions counted over the run: their code objects, by what they mean."""
    from boardzoo.agents.mcts import MCTSAgent
    from boardzoo.agents.mcts.search import Search
    from boardzoo.envs.aec import BoardGameEnv
    from boardzoo.spec import split_spec

    return {split_spec.__code__: "spec strings split", MCTSAgent.check.__code__: "MCTS checks of the game",
            Search.__init__.__code__: "searches built", BoardGameEnv.reset.__code__: "env resets"}


def walk(argv: list[str]) -> dict:
    calls = changes = 0
    files: set[str] = set()
    counts: Counter = Counter()
    before: dict[str, int] = {}
    first_move_done = False
    depth_of_act: list[int] = []
    depth = 0
    watching = watched()

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
        if code in watching:
            counts[watching[code]] += 1
        if first_move_done:
            return
        if code.co_name == "act" and "/agents/" in code.co_filename and not depth_of_act:
            depth_of_act.append(depth - 1)
        if depth_of_act:
            return  # inside the first move: the search itself is not the road to it
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
            "all": counts, "labels": list(watching.values())}


if __name__ == "__main__":
    argv = sys.argv[1:] or DEFAULT
    result = walk(argv)
    print(f"boardzoo {' '.join(argv)}  (exit {result['status']})")
    print(f"to the first move: {result['calls']} calls of boardzoo functions, {result['changes']} changes of file, "
          f"{result['files']} files")
    for label in result["labels"]:
        print(f"{label}: {result['before'].get(label, 0)} before the first move, {result['all'][label]} in all")
