"""Every example script runs to the end (the RL training examples have their own smoke
test in test_rl.py: they need the rl extra and minutes)."""

import pathlib
import runpy

import pytest

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parent.parent / "examples").glob("*.py")
                  if not p.name.startswith("train_"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert "game over" in capsys.readouterr().out
