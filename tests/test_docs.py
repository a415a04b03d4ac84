"""The documentation site: the generated env and agent pages follow the code, every link
between the pages resolves, and (with the docs extra) the site builds in strict mode."""

import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

from boardzoo.agents import AGENTS
from boardzoo.envs import ENVS, env_module
from boardzoo.experiments import EXPERIMENTS

ROOT = pathlib.Path(__file__).parent.parent


def load_hook():
    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "tools" / "docs_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_env_page_is_its_docstring_and_its_spec():
    hook = load_hook()
    for name in ENVS:
        page = hook.env_page(name)
        first_heading = env_module(name).__doc__.strip().splitlines()[0]
        assert page.startswith(first_heading), name
        assert "## Action mask" in page and "## Version history" in page, name
        assert f"`{name}` takes, as `{name}:key=value,...`:" in page


def test_every_agent_page_lists_every_spec_parameter_and_part():
    from boardzoo.agents import SPEC_HIDDEN
    from boardzoo.spec import parameters

    hook = load_hook()
    for name, cls in AGENTS.items():
        page = hook.agent_page(name)
        assert page.startswith(f"# `{name}`"), name
        for parameter in parameters(cls):
            if parameter not in SPEC_HIDDEN:
                assert f"| `{parameter}` |" in page, (name, parameter)
        for chooser, registry in cls.parts.items():
            for part in registry.names():
                assert f"| `{chooser}={part}` |" in page, (name, chooser, part)
    mcts = hook.agent_page("mcts")
    assert "`c_final` | `0.0`" in mcts and "| `iterations` | `1000 without time= or schedule=` |" in mcts
    # the names a game registers, read from its knowledge: Nim's strategic roll-out, Geister's beliefs
    assert re.search(r"\| nim \| [^\n]*`strategic`", mcts) and re.search(r"\| geister \| [^\n]*`behaviour`", mcts)
    assert "`three2`" in hook.agent_page("alphabeta")


def test_the_studies_page_links_every_committed_report():
    page = load_hook().experiments_page(ROOT / "docs")
    for name in EXPERIMENTS:
        assert f"## `{name}`" in page and f"({name}/report.md)" in page
    assert "(cantris-mcts/full/report.md)" in page


def test_links_between_the_pages_resolve():
    generated = {f"envs/{name}.md" for name in ENVS} | {f"agents/{name}.md" for name in AGENTS} | \
        {"experiments/index.md"}
    docs = ROOT / "docs"
    pages = [*docs.rglob("*.md"), ROOT / "README.md"]
    checked = 0
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            resolved = (page.parent / target).resolve()
            relative = resolved.relative_to(docs.resolve()).as_posix() if resolved.is_relative_to(docs.resolve()) \
                else None
            assert resolved.exists() or relative in generated, f"{page.relative_to(ROOT)} links to missing {target}"
            checked += 1
    assert checked > 20  # the check found the links it should check


def test_the_site_builds_in_strict_mode(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "end of life" not in result.stderr + result.stdout  # a theme that is kept up
    for page in ("index.html", "envs/geister_v0/index.html", "agents/mcts/index.html",
                 "experiments/cantris-mcts/full/report/index.html", "rules-geister/index.html"):
        assert (tmp_path / "site" / page).exists(), page
    assert "ucb-minimal" in (tmp_path / "site" / "agents" / "mcts" / "index.html").read_text()
