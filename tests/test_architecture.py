"""The layers hold: import-linter's contracts in pyproject.toml (each layer imports only
from the layers below it, siblings on one line not from each other, no package's modules
in a circle) pass on the code as it is.

import-linter runs in a process of its own: the test session has imported whatever the
other test modules import (Ray, RLlib, PyTorch), whose logging would otherwise write into
this test's captured and then closed streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter.cli", reason="import-linter comes with the test extra")
ROOT = Path(__file__).resolve().parent.parent


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    """import-linter on the package in ``folder`` (its pyproject.toml), in a fresh process."""
    code = ("import sys, importlinter.cli as cli; "
            "sys.exit(cli.lint_imports(config_filename='pyproject.toml', no_cache=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(folder)})


def test_the_import_contracts_are_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_a_broken_layer_would_be_caught(tmp_path):
    """The contract is not vacuous: the rules layer importing an agent breaks it."""
    package = tmp_path / "boardzoo"
    for path in (ROOT / "boardzoo").rglob("*.py"):
        target = package / path.relative_to(ROOT / "boardzoo")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    rules = package / "games" / "nim" / "__init__.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "\nfrom boardzoo.agents import make  # noqa\n",
                     encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode != 0 and "boardzoo.games.nim -> boardzoo.agents" in done.stdout


def loaded_extras(code: str) -> list[str]:
    """The extras' packages loaded in a fresh process after running ``code``."""
    extras = ["numba", "torch", "ray", "stable_baselines3", "sb3_contrib", "torchrl", "tensordict", "starlette",
              "uvicorn", "matplotlib", "jax", "pgx", "tqdm", "scipy"]
    program = f"import sys\n{code}\nprint(sorted({{n.split('.')[0] for n in sys.modules}} & set({extras!r})))"
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip())


def test_the_core_imports_no_extra():
    """Importing boardzoo and its core (envs, batched games and their Gymnasium face,
    agents, arena, league, the CLI) loads none of the optional extras' packages; using the
    batched games loads none but the compiled engine's (``engine="auto"`` takes it where
    it is installed, as every agent does) and what numba imports itself."""
    imports = ("import gymnasium, boardzoo, boardzoo.envs, boardzoo.vector, boardzoo.training.vector_env, "
               "boardzoo.agents, boardzoo.arena, boardzoo.league, boardzoo.cli")
    assert loaded_extras(imports) == []
    use = (f"{imports}\ngymnasium.make_vec('boardzoo/nim-v0', num_envs=2, vectorization_mode='vector_entry_point')"
           ".reset(seed=0)")
    assert set(loaded_extras(use)) <= {"numba", "scipy"}  # numba imports SciPy itself where it is installed


def test_no_game_is_branched_on_or_listed_in_the_shared_compiled_batch_and_training_code():
    """What a game is lives in its folder: in ``fast``, ``vector`` and ``training`` no
    comparison names a game or holds a game's name or id against a constant, and no list,
    tuple, set, dict or index names one (an env named as an argument's default is neither)."""
    import ast

    from boardzoo.games.registry import games

    names = set(games()) | {env for game in games().values() for env in game.envs}

    def names_a_game(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    found = []
    for folder in ("fast", "vector", "training"):
        for path in sorted((ROOT / "boardzoo" / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
                members = [*getattr(node, "elts", []), *(getattr(node, "keys", None) or [])] \
                    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) else []
                index = [node.slice] if isinstance(node, ast.Subscript) else []
                a_game = any(isinstance(side, ast.Name) and side.id in ("game", "game_id", "game_name")
                             for side in sides)
                a_constant = any(isinstance(side, ast.Constant) and side.value is not None for side in sides)
                game_against_constant = a_game and a_constant
                if game_against_constant or any(map(names_a_game, sides + members + index)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found
