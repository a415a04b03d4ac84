"""Every example script runs to the end (the RL training examples have their own smoke
test in test_rl.py: they need the rl extra and minutes)."""

import pathlib
import runpy

import pytest

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parent.parent / "examples").glob("*.py")
                  if not p.name.startswith("train_"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path, capsys):
    # An example that needs an extra says so on a line of its own: "# needs: pyspiel, torchrl".
    for line in path.read_text().splitlines():
        if line.startswith("# needs:"):
            for module in line.removeprefix("# needs:").split(","):
                pytest.importorskip(module.strip(), reason=f"{path.name} needs {module.strip()} (an extra)")
    runpy.run_path(str(path), run_name="__main__")
    assert "game over" in capsys.readouterr().out


def test_the_mcts_tutorial_worked_examples_run():
    """The MCTS tutorial's "add a selection policy" and "add an evaluator" examples, run as
    written, give agents that search and play legal moves."""
    import pathlib
    import re

    from boardzoo.agents.mcts import SELECTION
    from boardzoo.games import ConnectFourState

    page = pathlib.Path(__file__).parent.parent / "docs" / "tutorials" / "mcts-as-parts.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert len(blocks) == 2
    for block in blocks:
        namespace: dict = {}
        if "ucb1-tuned" in block and "ucb1-tuned" in SELECTION:
            continue  # registered by an earlier run in this process
        exec(compile(block, str(page), "exec"), namespace)
        agent = namespace["agent"]
        state = ConnectFourState()
        assert agent.act(None, state) in state.legal_actions()
        assert sum(c["visits"] for c in agent.stats["children"]) == agent.stats["iterations"]
    assert "ucb1-tuned" in SELECTION.names()
