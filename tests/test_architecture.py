"""The layers hold: import-linter's contracts in pyproject.toml (each layer imports only
from the layers below it, siblings on one line not from each other, no package's modules
in a circle) pass on the code as it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

importlinter_cli = pytest.importorskip("importlinter.cli", reason="import-linter comes with the test extra")
ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_are_kept(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    status = importlinter_cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    report = capsys.readouterr().out
    assert status == 0, report
    assert "2 kept, 0 broken" in report


def test_a_broken_layer_would_be_caught(monkeypatch, capsys, tmp_path):
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
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [name for name in sys.modules if name == "boardzoo" or name.startswith("boardzoo.")]:
        monkeypatch.delitem(sys.modules, name)  # restored after the test
    status = importlinter_cli.lint_imports(config_filename=str(tmp_path / "pyproject.toml"), no_cache=True)
    report = capsys.readouterr().out
    assert status != 0 and "boardzoo.games.nim -> boardzoo.agents" in report
