"""Judging a run's networks, which training never reads: games against the previous
generation and the anchors (results files in ``eval/``, resumable as any arena run),
the probes the run's settings name, ratings over every game so far, and the curves.

A probe is ``probe(evaluation, generation) -> {key: value}``, added to the generation's
record. Two exist: ``mistake_sets`` (the settings name a file of solver-scored positions,
:mod:`.referee`: mistake rates by the outcome and the score rule, with and without
search) and ``pile_theory`` (the share of winning piles where the network alone plays the
known theory of a subtraction game: leave a multiple of k + 1)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.arena import run as run_arena
from boardzoo.errors import ResultsFileError
from boardzoo.files import file_digest
from boardzoo.stats import ratings
from boardzoo.training.alphazero.config import TrainingConfig
from boardzoo.training.alphazero.run_directory import RunDirectory


def env_spec(config: TrainingConfig) -> str:
    """The env spec string of the configuration's games (as the arena takes it)."""
    def text(value: Any) -> str:
        return f"{value[0]}..{value[1]}" if isinstance(value, (list, tuple)) else str(value).lower() \
            if isinstance(value, bool) else str(value)
    params = ",".join(f"{key}={text(value)}" for key, value in config.params.items())
    return f"{config.env}:{params}" if params else config.env


def seed_of(base: int, generation: int, part: int) -> int:
    """A seed for one part of one generation's work, the same however often it is asked."""
    return int(np.random.SeedSequence([base, generation, part]).generate_state(1, dtype=np.uint64)[0] >> 1)


class Evaluation:
    """The evaluation of the run in ``directory`` with ``config``; ``network_of()`` is the
    network in hand, the generation being evaluated (for the probes that read it
    directly)."""

    def __init__(self, directory: RunDirectory, config: TrainingConfig, workers: int,
                 network_of: Callable[[], Any], log: Callable[[str], None]):
        self.directory, self.config, self.workers, self.network_of, self.log = \
            directory, config, workers, network_of, log
        self.anchor_ratings: dict[str, float] = {}

    def agent_spec(self, generation: int, simulations: int, sample_moves: int = 0) -> str:
        spec = f"alphazero:weights={self.directory.weights_path(generation)},iterations={simulations}"
        return f"{spec},sample_moves={sample_moves}" if sample_moves else spec

    def evaluate(self, generation: int) -> dict[str, Any]:
        """Generation ``generation``'s record of games and probes."""
        g, config = generation, self.config
        began = time.monotonic()
        record: dict[str, Any] = {}
        if config.eval_games and g % config.eval_every == 0:
            record.update(self._games(g))
        for name in config.probes:
            record.update(PROBES[name].measure(self, g))
        if config.mistake_sets and config.mistakes_every and g % config.mistakes_every == 0:
            record.update(mistake_rates(self, g))
        record["eval_seconds"] = round(time.monotonic() - began, 1)
        return record

    def _games(self, g: int) -> dict[str, Any]:
        config = self.config
        # The first moves drawn from the improved policy: two deterministic players
        # would play one game a seating, however many games are asked for.
        me = self.agent_spec(g, config.eval_simulations, config.eval_sample_moves)
        opponents = {f"gen-{g - 1}": self.agent_spec(g - 1, config.eval_simulations, config.eval_sample_moves)} \
            if os.path.exists(self.directory.weights_path(g - 1)) else {}
        opponents.update({anchor: anchor for anchor in config.anchors})
        network = file_digest(self.directory.weights_path(g), 12)
        scores = {}
        for name, spec in opponents.items():
            out = self.directory.evaluation_games(g, network, name)
            # Here, not on Ray: the agents read the network's file, which other nodes may not have.
            try:
                games = self._play(me, spec, out, g)
            except ResultsFileError as error:  # the run's directory moved: the file names another path
                if not os.path.exists(out):
                    raise
                os.replace(out, out + ".stale")
                self.log(f"generation {g}: set aside {os.path.basename(out)} ({error}); its games are played again")
                games = self._play(me, spec, out, g)
            scores[name] = [1.0 if r["winner"] == "a" else 0.5 if r["winner"] is None else 0.0 for r in games]
        return {"scores": {name: round(float(np.mean(s)), 4) for name, s in scores.items()},
                "results": {name: [float(x) for x in s] for name, s in scores.items()}}

    def _play(self, me: str, spec: str, out: str, g: int) -> list[dict[str, Any]]:
        return run_arena(env_spec(self.config), me, spec, self.config.eval_games, seed=seed_of(self.config.seed, g, 3),
                         workers=self.workers, out=out, progress=False, log=self.log)

    def rate(self, history: list[dict[str, Any]]) -> None:
        """Ratings of every generation (into its record) and anchor from every evaluation
        game so far, with 95 % bootstrap intervals; random (when an anchor) is 0."""
        results: dict[tuple[str, str], list[float]] = {}
        for entry in history:
            for name, scores in entry.get("results", {}).items():
                results.setdefault((f"gen-{entry['generation']}", name), []).extend(scores)
        if not results:
            return
        rated = {r.name: r for r in ratings(results, resamples=500, seed=self.config.seed)}
        zero = rated["random"].elo if "random" in rated else 0.0
        for entry in history:
            rating = rated.get(f"gen-{entry['generation']}")
            if rating is not None:
                entry["elo"], entry["elo_low"], entry["elo_high"] = (round(x - zero, 1) for x in
                                                                     (rating.elo, rating.low, rating.high))
        self.anchor_ratings = {name: round(r.elo - zero, 1) for name, r in rated.items() if not name.startswith("gen-")}

    def plot(self, history: list[dict[str, Any]]) -> None:
        """The curves into ``training.png``, where the plot extra is installed."""
        try:
            from boardzoo.training.alphazero.plots import plot_history
        except ImportError:
            return
        plot_history(history, self.directory.file("training.png"), self.anchor_ratings)


def summary(record: dict[str, Any]) -> str:
    """A generation's evaluation in a line of the log."""
    scores = ", ".join(f"{name} {score:.2f}" for name, score in record.get("scores", {}).items())
    rating = record.get("elo")
    return (scores + (f"; rating {rating:+.0f}" if rating is not None else "")
            + (f"; mistakes (outcome rule) {record['outcome_mistakes']}" if "outcome_mistakes" in record else "")
            + (f"; theory {record['pile_theory']:.2f}" if "pile_theory" in record else ""))


# --- probes ---------------------------------------------------------------------------------------------------
def mistake_rates(evaluation: Evaluation, g: int) -> dict[str, Any]:
    """Generation g's mistake rates on the solver-scored sets by the outcome rule and by
    the score rule (the referee's docstring), each {"network" | "search": {set: rate}}."""
    from boardzoo.agents import make as make_agent
    from boardzoo.training.alphazero.referee import chooser, mistake_counts, read_mistake_sets

    config = evaluation.config
    sets = read_mistake_sets(config.mistake_sets)
    outcome, score = {}, {}
    for label, simulations in (("network", 0), ("search", config.mistake_simulations)):
        agent = make_agent(evaluation.agent_spec(g, simulations), seed=0)
        counts = mistake_counts(chooser(agent), sets, config.mistake_positions, config.env)
        outcome[label] = {name: round(c.outcome / c.positions, 4) for name, c in counts.items() if c.positions}
        score[label] = {name: round(c.score / c.positions, 4) for name, c in counts.items() if c.positions}
    return {"outcome_mistakes": outcome, "mistakes": score}


def pile_theory(evaluation: Evaluation, g: int) -> dict[str, Any]:
    """The share of winning piles (not a multiple of k + 1) up to the network's largest
    where the network alone leaves a multiple of k + 1, the known theory of taking 1..k
    from one pile; the network's input is the pile one-hot."""
    network = evaluation.network_of()
    k = int(evaluation.config.params.get("k", 3))
    size = int(network.architecture["input"][0])
    piles = [n for n in range(1, size) if n % (k + 1)]
    logits, _ = network(np.eye(size, dtype=np.float32)[piles])
    right = [int(np.argmax(logits[i, :min(k, n)])) + 1 == n % (k + 1) for i, n in enumerate(piles)]
    return {"pile_theory": float(np.mean(right))}


@dataclass(frozen=True)
class Probe:
    """A probe (``measure(evaluation, generation) -> record entries``) and the runs it can
    measure: ``fits(config)``, else it needs what ``needs`` says."""

    measure: Callable[[Evaluation, int], dict[str, Any]]
    fits: Callable[[TrainingConfig], bool]
    needs: str


#: The probes a run's settings may name (``probes``), by name.
PROBES: dict[str, Probe] = {
    "pile_theory": Probe(pile_theory, lambda config: config.largest_pile > 0,
                         "a pile game's network, its input the pile one-hot (largest_pile above 0)"),
}
