"""The referee of AlphaZero's training: the mistake sets, the two rules that judge a move, and
long measurements in parts, in parallel, resumed."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
torch = pytest.importorskip("torch", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                            "pip install '.[rl]')")

from alphazero_fixtures import ARCHITECTURES, SETS_FILE, random_module  # noqa: E402

from boardzoo.agents import make as make_agent  # noqa: E402
from boardzoo.training.alphazero.referee import (  # noqa: E402
    SET_NAMES,
    Position,
    chooser,
    mistake_counts,
    one_by_one,
    read_mistake_sets,
)


def test_the_mistake_sets_are_read_and_a_bad_line_is_named(tmp_path):
    sets = read_mistake_sets(SETS_FILE)
    assert set(sets) <= {"end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard"}
    bad = tmp_path / "sets.txt"
    bad.write_text("begin-easy 4455 0 1 2 3 4 5 6 7\nbegin-easy 44x5 0 1 2 3 4 5 6 7\n")
    with pytest.raises(ValueError, match="line 2"):
        read_mistake_sets(str(bad))


def test_the_outcome_and_the_score_rules_judge_worked_examples():
    # Column 1 wins soonest, 2 wins later, 3 draws, 4 loses, 5 is full.
    won = Position("", (18, 2, 0, -5, None, 0, 18))
    assert [won.worse_outcome(c) for c in range(7)] == [False, False, True, True, True, True, False]
    assert [won.worse_score(c) for c in range(7)] == [False, True, True, True, True, True, False]
    drawn = Position("", (0, -3, 0, -1, -7, -2, -3))
    assert [drawn.worse_outcome(c) for c in range(7)] == [False, True, False, True, True, True, True]
    lost = Position("", (-9, -3, -4, -3, -12, -20, -3))  # every move loses: only the slowest keeps the score
    assert not any(lost.worse_outcome(c) for c in range(7))
    assert [lost.worse_score(c) for c in range(7)] == [True, False, True, False, True, True, False]


def test_mistakes_are_counted_per_set_by_both_rules():
    sets = {name: positions[:5] for name, positions in read_mistake_sets(SETS_FILE).items()}

    def by_scores(pick):
        judged = iter([p for name in SET_NAMES if name in sets for p in sets[name]])  # the order judged

        def choose(observation, model):
            values = next(judged).values
            legal = [c for c in range(7) if values[c] is not None]
            assert legal == [int(a) for a in np.flatnonzero(observation["action_mask"])]  # the position set up
            return pick(legal, key=lambda c: values[c])
        return choose

    best, worst = mistake_counts(one_by_one(by_scores(max)), sets), mistake_counts(one_by_one(by_scores(min)), sets)
    for name, positions in sets.items():
        assert best[name] == (0, 0, len(positions))
        worst_moves = [min((c for c in range(7) if p.values[c] is not None), key=lambda c: p.values[c])
                       for p in positions]
        assert worst[name] == (sum(map(Position.worse_outcome, positions, worst_moves)),
                               sum(map(Position.worse_score, positions, worst_moves)), len(positions))
        assert worst[name].outcome <= worst[name].score


def test_a_long_mistake_measurement_runs_in_parts_in_parallel_and_resumes(tmp_path):
    from filelock import FileLock

    from boardzoo.training.alphazero.referee import measure_mistakes

    spec, part = "alphabeta:depth=2,eval=three2", 10
    sets = {name: positions[:25] for name, positions in read_mistake_sets(SETS_FILE).items()
            if name in ("middle-easy", "begin-hard")}
    expected = {}
    for name, positions in sets.items():  # each part judged by a fresh agent seeded by the part
        parts = [mistake_counts(chooser(make_agent(spec, seed=SET_NAMES.index(name) * 1_000_000 + start)),
                                {name: positions[start:start + part]})[name] for start in range(0, 25, part)]
        expected[name] = tuple(map(sum, zip(*parts)))
    out = str(tmp_path / "measured.json")
    lines: list[str] = []
    first = measure_mistakes(spec, {"begin-hard": sets["begin-hard"]}, workers=2, out=out, part=part,
                             log=lines.append)
    assert first["begin-hard"] == expected["begin-hard"] and first["middle-easy"] == (0, 0, 0)
    # Run again with more sets: only the parts missing from the file are judged.
    lines.clear()
    both = measure_mistakes(spec, sets, workers=2, out=out, part=part, log=lines.append)
    assert {name: both[name] for name in sets} == expected
    assert lines[0].endswith("3 parts of up to 10 positions to judge, 3 already judged")
    assert measure_mistakes(spec, sets, out=out, part=part, log=lines.append) == both  # nothing left to judge
    assert measure_mistakes(spec, sets, part=part) == both  # no file: all judged again, the same
    stored = json.loads(open(out).read())
    with FileLock(out + ".lock"):  # another measurement is writing it
        with pytest.raises(ValueError, match="is being written by another measurement"):
            measure_mistakes(spec, sets, out=out, part=part)
    with pytest.raises(ValueError, match="was measured on other positions"):
        measure_mistakes(spec, {"begin-hard": sets["middle-easy"]}, out=out, part=part)
    stored["measurements"][spec]["begin-hard/0"]["outcome"] = 99  # more mistakes than positions
    with open(out, "w") as handle:
        json.dump(stored, handle)
    with pytest.raises(ValueError, match="has a part that is not a set's counts: 'begin-hard/0'"):
        measure_mistakes(spec, sets, out=out, part=part)
    with open(out, "w") as handle:
        handle.write("no json")
    with pytest.raises(ValueError, match="is not a mistake measurement"):
        measure_mistakes(spec, sets, out=out, part=part)
    # A network file named in the spec is part of the player: rewritten, it is measured again.
    weights = str(tmp_path / "latest.npz")
    random_module(ARCHITECTURES[0], 0).to_network().save(weights)
    os.unlink(out)
    network_spec, lines = f"alphazero:weights={weights},iterations=0", []
    small = {"begin-hard": sets["begin-hard"][:3]}
    measure_mistakes(network_spec, small, out=out, part=part, log=lines.append)
    random_module(ARCHITECTURES[0], 1).to_network().save(weights)
    measure_mistakes(network_spec, small, out=out, part=part, log=lines.append)
    assert sum("1 parts of up to 10 positions to judge, 0 already judged" in line for line in lines) == 2
    assert len(json.loads(open(out).read())["measurements"]) == 2


