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
    rules = package / "games" / "nim.py"
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
