"""MkDocs hook (``mkdocs.yml``: ``hooks``): the reference pages of the envs and agents,
written at build time from the code itself, so they cannot drift from it.

* ``envs/<name>.md`` -- the env module's docstring (its documentation, PettingZoo-style:
  rules, observation, action mask, rewards, version history) and its parameters in spec
  syntax with their defaults, as ``boardzoo list`` shows them;
* ``agents/<name>.md`` -- the agent's summary, a table of its spec parameters (default,
  accepted values; for MCTS also each part's own parameters) and its module's docstring;
* ``experiments/index.md`` -- every study: what it compares, its run sizes and times, and
  links to its committed reports.

Each generated page joins the navigation under "Envs" / "Agents", after their index page.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

from boardzoo.agents import AGENTS, PRESETS, SPEC_HIDDEN
from boardzoo.envs import ENVS, env_module, parameters_text
from boardzoo.experiments import EXPERIMENTS
from boardzoo.spec import declared_types, default_text, parameters, split_spec
from boardzoo.strategy.knowledge import all_knowledge

_SPHINX_ROLE = re.compile(r":(?:class|mod|func|meth|attr):`~?([^`]+)`")


def as_markdown(docstring: str | None) -> str:
    """A docstring as markdown: dedented, Sphinx roles (``:class:`X```) turned into code."""
    return _SPHINX_ROLE.sub(r"`\1`", inspect.cleandoc(docstring or ""))


def _type_names(types: tuple[type, ...]) -> str:
    names = {bool: "true / false", int: "integer", float: "number", str: "text", tuple: "range lo..hi",
             type(None): "none"}
    return ", ".join(names.get(t, getattr(t, "__name__", str(t))) for t in types) or "any"


#: Spec parameters whose values are names a game registers (``boardzoo.strategy.knowledge``),
#: with the knowledge field that lists them.
KNOWLEDGE_PARAMETERS = {"rollout": lambda k: k.rollout_names(), "value": lambda k: list(k.evaluators),
                        "eval": lambda k: ["simple", *k.evaluators], "belief": lambda k: list(k.beliefs),
                        "schedule": lambda k: list(k.schedules)}


def _parameter_rows(defaults: dict[str, Any], types: dict[str, tuple[type, ...]], hidden: tuple[str, ...] = (),
                    notes: dict[str, str] | None = None, choices: dict[str, str] | None = None) -> list[str]:
    notes, choices = notes or {}, choices or {}
    rows = []
    for name, default in defaults.items():
        if name in hidden:
            continue
        shown = default_text(default, notes.get(name))
        if shown is None:
            shown = "(required)"
        accepts = choices.get(name) or _type_names(types.get(name, ()))
        rows.append(f"| `{name}` | `{shown}` | {accepts} |")
    return rows


def _knowledge_table(names: list[str]) -> list[str]:
    """Per game, the names each of ``names`` (knowledge parameters) accepts there."""
    lines = ["## Names each game registers", "",
             "The values of " + ", ".join(f"`{name}`" for name in names) + " are names a game registers "
             "with its knowledge (`boardzoo/strategy/knowledge.py`); a name the game does not register is "
             "refused before the first move.", "",
             "| game | " + " | ".join(f"`{name}`" for name in names) + " |", "|---|" + "---|" * len(names)]
    for game, knowledge in all_knowledge().items():
        cells = [", ".join(f"`{value}`" for value in KNOWLEDGE_PARAMETERS[name](knowledge)) or "-" for name in names]
        lines.append(f"| {game} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def env_page(name: str) -> str:
    module = env_module(name)
    spec = parameters_text(name)
    text = as_markdown(module.__doc__)
    if not text.startswith("# "):
        text = f"# `{name}`\n\n{text}"
    return (f"{text}\n\n## Spec\n\n`{name}` takes, as `{name}:key=value,...`: {spec}.\n"
            f"`boardzoo list` prints the same; `boardzoo.envs.make(\"{name}\", **parameters)` builds it in Python.\n")


def agent_page(name: str) -> str:
    cls = AGENTS[name]
    notes = dict(cls.default_notes)
    lines = [f"# `{name}`", "", f"{cls.summary[:1].upper()}{cls.summary[1:]}.", "",
             f"Built from a spec, `{name}:key=value,...`, by `boardzoo.agents.make(spec, seed=...)`, "
             "or named on the command line.", ""]
    defaults = parameters(cls)
    choices = {chooser: "one of " + ", ".join(f"`{part}`" for part in registry.names())
               for chooser, registry in cls.parts.items()}
    known = [name for name in KNOWLEDGE_PARAMETERS if name in defaults]
    choices.update({name: "a name the game registers (below)" for name in known})
    rows = _parameter_rows(defaults, declared_types(cls), SPEC_HIDDEN, notes, choices)
    if rows:
        lines += ["## Parameters", "", "| parameter | default | accepts |", "|---|---|---|", *rows, ""]
    for chooser, registry in cls.parts.items():
        lines += [f"### The parts `{chooser}=` chooses", "",
                  "A part's parameters are accepted only when that part is chosen.", "",
                  "| part | parameter | default | accepts |", "|---|---|---|---|"]
        for part in registry.names():
            own = _parameter_rows(registry.defaults(part), registry.parameters(part))
            lines += [f"| `{chooser}={part}` {row}" for row in own] or [f"| `{chooser}={part}` | | | |"]
        lines.append("")
    if known:
        lines += _knowledge_table(known)
    presets = [(preset_name, preset) for preset_name, preset in PRESETS.items()
               if split_spec(preset.spec)[0] == name]
    if presets:
        lines += ["## Presets", "", "Named, tuned settings of this agent; parameters written after the name "
                  "override the preset's own (`NAME:iterations=2000`).", "",
                  "| preset | stands for | what it is |", "|---|---|---|",
                  *(f"| `{preset_name}` | `{preset.spec}` | {preset.summary} |" for preset_name, preset in presets), ""]
    about = as_markdown(cls.__doc__) if cls.__doc__ else ""
    module_doc = as_markdown(inspect.getmodule(cls).__doc__)
    lines += ["## About", "", *(part for part in (about, module_doc) if part)]
    return "\n".join(lines) + "\n"


def experiments_page(docs_dir: Path) -> str:
    """What each study compares, what its runs play and take, and its committed reports."""
    lines = ["# The studies", "",
             "One experiment per source document, run with `boardzoo experiment run NAME` (see "
             "[Re-running the studies](../tutorials/experiments.md)). Each committed report puts every "
             "published table beside ours, with the statistics and the deviations from the document's "
             "protocol.", ""]
    for name, experiment in EXPERIMENTS.items():
        reports = [f"[{label}]({name}/{folder}report.md)" for label, folder in (("default run", ""),
                                                                               ("full design", "full/"))
                   if (docs_dir / "experiments" / name / folder / "report.md").exists()]
        lines += [f"## `{name}`", "", f"*{experiment.source}*", "", f"Compares {experiment.compares}.", "",
                  f"- default run: {experiment.default_size} ({experiment.expected_time})",
                  f"- `--full`: {experiment.full_size} ({experiment.full_time})",
                  f"- reports: {', '.join(reports) if reports else 'none committed'}", ""]
    return "\n".join(lines)


def generated_pages() -> dict[str, list[tuple[str, str, str]]]:
    """Navigation section -> [(title, path in the site, markdown)]."""
    return {"Envs": [(name, f"envs/{name}.md", env_page(name)) for name in ENVS],
            "Agents": [(name, f"agents/{name}.md", agent_page(name)) for name in AGENTS]}


def on_config(config):
    for section, pages in generated_pages().items():
        for entry in config["nav"]:
            if isinstance(entry, dict) and section in entry:
                entry[section] = list(entry[section]) + [{title: path} for title, path, _ in pages]
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    for pages in generated_pages().values():
        for _, path, markdown in pages:
            files.append(File.generated(config, path, content=markdown))
    files.append(File.generated(config, "experiments/index.md", content=experiments_page(Path(config["docs_dir"]))))
    return files
