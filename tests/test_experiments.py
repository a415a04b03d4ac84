"""Experiments: the statistics they report, every experiment end to end at a tiny size,
resuming, executors, and the command line."""

import json
import math
import re
import sys
from dataclasses import replace
from statistics import mean, stdev

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from boardzoo.cli import main
from boardzoo.experiments import EXPERIMENTS, ExperimentError, get, run
from boardzoo.experiments.connect_four_minimax import NO_TABLE
from boardzoo.experiments.framework import Report
from boardzoo.stats import (
    benjamini_hochberg,
    best_of_k,
    compare_counts,
    compare_means,
    difference_interval,
    fisher_exact,
    holm,
    mean_interval,
    ratings,
    reward_m,
    tost_p,
    verdicts,
    welch_test,
    wilson,
)


def quiet(line):
    pass


# --- statistics -----------------------------------------------------------------------------
def test_reward_m_follows_seed_003():
    assert reward_m(True, 7) == pytest.approx(0.8)  # the quickest win
    assert reward_m(True, 42) == pytest.approx(0.0)
    assert reward_m(True, 21) == pytest.approx(0.8 * (1 - 14 / 35))
    assert reward_m(False, 7) == pytest.approx(-1.0)  # the quickest loss
    assert reward_m(False, 42) == pytest.approx(0.0)  # a draw on the full board
    assert reward_m(True, 20) > reward_m(True, 30) and reward_m(False, 20) < reward_m(False, 30)
    for moves in (6, 43):
        with pytest.raises(ValueError, match="7..42"):
            reward_m(True, moves)


def test_wilson_interval_known_values():
    low, high = wilson(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10) == pytest.approx((1 - 0.2775, 1.0), abs=1e-4)
    low, high = wilson(297, 300)
    assert low < 0.99 < high
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(0, 0)


def test_mean_interval():
    centre, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert centre == 2.5 and (low, high) == pytest.approx((2.5 - 1.96 * 1.2910 / 2, 2.5 + 1.96 * 1.2910 / 2), abs=1e-3)
    assert mean_interval([3.0]) == (3.0, 3.0, 3.0)


def test_fisher_exact_known_values():
    # Fisher's tea-tasting table (3/4 vs 1/4): two-sided p = 34/70
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert fisher_exact(5, 10, 5, 10) == pytest.approx(1.0)
    # the referee's own figure: a one-sided strategic roll-out gave 136:164 against 157:143
    assert fisher_exact(136, 300, 157, 300) == pytest.approx(0.102, abs=0.002)
    with pytest.raises(ValueError):
        fisher_exact(3, 2, 1, 4)


def test_difference_interval_contains_the_difference_and_is_sound_at_the_edges():
    d, low, high = difference_interval(30, 100, 20, 100)
    assert d == pytest.approx(0.1) and -0.05 < low < 0 and 0.2 < high < 0.25
    d, low, high = difference_interval(0, 50, 0, 50)
    assert d == 0 and -1 < low < 0 < high < 1


def test_welch_t_matches_the_textbook_example():
    # Welch's t-test, the worked example of its Wikipedia article (two samples of 15):
    # t = -2.46, Welch-Satterthwaite df = 25.0, two-sided p = 0.021.
    a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    result = welch_test(mean(a1), stdev(a1), 15, mean(a2), stdev(a2), 15)
    assert result.t == pytest.approx(-2.46, abs=0.005) and result.df == pytest.approx(24.99, abs=0.01)
    assert result.p == pytest.approx(0.021, abs=0.0005)
    # Unequal sizes and spreads: df from the Welch-Satterthwaite formula by hand.
    result = welch_test(10.0, 2.0, 10, 12.0, 6.0, 30)
    v1, v2 = 4 / 10, 36 / 30
    assert result.df == pytest.approx((v1 + v2) ** 2 / (v1 ** 2 / 9 + v2 ** 2 / 29))
    assert result.t == pytest.approx(-2 / math.sqrt(v1 + v2))
    # Without the other side's size: the one-sample t-test, df n - 1 (t(9) two-sided 5 % at 2.262).
    assert welch_test(2.262 * 3 / math.sqrt(10), 3.0, 10, 0.0, 0.0, None).p == pytest.approx(0.05, abs=1e-3)


def test_the_equivalence_test_matches_a_worked_example_and_its_interval():
    # TOST, worked by hand: difference 0.5, se 1, margin 2, normal: max(P(Z > 2.5), P(Z < -1.5)) = 0.0668.
    assert tost_p(0.5, 1.0, 2.0) == pytest.approx(0.0668, abs=1e-4)
    # On t with 10 df: the one-sided t(10) 5 % point is 1.812, so a difference at margin - 1.812 se is at 0.05.
    assert tost_p(2.0 - 1.812, 1.0, 2.0, df=10) == pytest.approx(0.05, abs=1e-3)
    with pytest.raises(ValueError):
        tost_p(0.0, 0.0, 1.0)


@given(difference=st.floats(-3, 3), se=st.floats(0.05, 2), margin=st.floats(0.05, 3))
def test_the_equivalence_test_rejects_exactly_when_the_90_percent_interval_lies_within_the_margin(
        difference, se, margin):
    half = 1.6448536 * se
    inside = -margin < difference - half and difference + half < margin
    p = tost_p(difference, se, margin)
    assume(abs(p - 0.05) > 1e-6)
    assert (p < 0.05) == inside


def test_holm_and_benjamini_hochberg_match_worked_examples():
    # p = (0.01, 0.04, 0.03, 0.005): Holm multiplies the sorted ones by 4, 3, 2, 1 and keeps
    # them increasing -> (0.03, 0.06, 0.06, 0.02); BH by 4/rank, kept decreasing from the top
    # -> (0.02, 0.04, 0.04, 0.02).
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0]) and holm([]) == []


def test_compare_counts_says_differs_equivalent_or_inconclusive():
    assert compare_counts(0, 300, 157 / 300, 300, 0.1).words.startswith("differs (Fisher's exact test")
    assert compare_counts(5020, 10_000, 0.5, 10_000, 0.05).words.startswith("equivalent within ±0.05")
    assert compare_counts(5, 10, 0.5, 300, 0.1).words.startswith("inconclusive")
    # A real but small difference on big samples: both, said so.
    assert compare_counts(5300, 10_000, 0.5, 10_000, 0.1).words.startswith("differs, but by less than ±0.1")
    # a published share without a sample size: an exact binomial test against it
    assert compare_counts(30, 100, 0.5, None, 0.1).words.startswith("differs (exact binomial test")


def test_compare_means_uses_welch_with_the_published_sample_size():
    values = [0.5, 0.6, 0.4, 0.55] * 5
    result = compare_means(values, 0.1, 15, 0.2)
    assert result.words.startswith("differs (Welch's t-test (df ") and result.low < result.difference < result.high
    assert compare_means(values, 0.52, None, 0.2).words.startswith("equivalent within ±0.2")


def test_no_verdict_comes_from_a_degenerate_sample():
    for values, reason in (([0.5] * 30, "no spread"), ([0.5], "fewer than 2"), ([], "fewer than 2")):
        result = compare_means(values, 0.1, 15, 0.2)
        assert result.p is None and result.p_equivalent is None
        assert result.words.startswith("no test (") and reason in result.words and "p =" not in result.words


def test_a_tables_verdicts_are_corrected_together():
    # Alone, p = 0.02 differs; in a table of four with three null results, Holm makes it 0.08.
    alone = compare_counts(62, 100, 0.45, 100, 0.1)
    assert alone.p == pytest.approx(0.02, abs=0.005) and alone.words.startswith("differs")
    nulls = [compare_counts(50, 100, 0.5, 100, 0.1) for _ in range(3)]
    words = verdicts([alone, *nulls, "no games", None])
    assert words[0].startswith("inconclusive") and "Holm, 4 tests" in words[0]
    assert words[4:] == ["no games", ""]
    assert verdicts([alone, *nulls], correction="bh")[0].startswith("inconclusive")


def test_best_of_k_takes_the_winners_curse_off():
    """Ten equal settings: the observed best is flattered; the corrected mean is lower and
    its interval covers the true mean (0.5)."""
    import random

    rng = random.Random(5)
    samples = {f"s{i}": [rng.random() for _ in range(15)] for i in range(10)}
    best = best_of_k(samples, seed=1)
    assert best.corrected < best.observed and best.low < 0.5 < best.high
    assert sum(best.chance_best.values()) == pytest.approx(1.0)


def test_a_batch_of_bradley_terry_fits_equals_the_fits_one_by_one():
    """The bootstrap fits its resamples as one batch; each must be the fit of its own."""
    import numpy as np

    from boardzoo.stats import _bradley_terry

    rng = np.random.default_rng(3)
    pairs = np.array([(0, 1), (0, 2), (1, 2), (2, 3)])
    scores = rng.integers(0, 12, (25, 4, 2)).astype(float)
    scores[0, :, 1] = 0  # one resample where the first of each pair never loses
    batch = _bradley_terry(4, pairs, scores)
    assert batch.shape == (25, 4)
    for number in range(25):
        assert np.allclose(batch[number], _bradley_terry(4, pairs, scores[number]), atol=1e-6)


def test_bootstrap_sums_are_drawn_as_resampling_game_by_game_would():
    """Counts of each distinct score, drawn at once, have the sums' distribution of
    resampling games one by one: for 60 wins, 20 draws and 20 losses in 100 games, the
    mean 70 and the standard deviation sqrt(100 * (0.6 + 0.05 - 0.7**2)) = 4.0."""
    import numpy as np

    from boardzoo.stats import _resampled_sums

    scores = np.array([1.0] * 60 + [0.5] * 20 + [0.0] * 20)
    sums = _resampled_sums(scores, 40_000, np.random.default_rng(5))
    assert sums.shape == (40_000,) and set(np.unique(sums * 2) % 1) == {0.0}
    assert abs(sums.mean() - 70) < 0.1 and abs(sums.std() - 4.0) < 0.1


def test_bradley_terry_ratings_order_and_intervals():
    scores = {("x", "y"): [1.0] * 60 + [0.0] * 20, ("x", "z"): [1.0] * 70 + [0.5] * 10,
              ("y", "z"): [1.0] * 50 + [0.0] * 30}
    rated = ratings(scores, resamples=200)
    assert [r.name for r in rated] == ["x", "y", "z"]
    assert all(r.low <= r.elo <= r.high for r in rated) and abs(sum(r.elo for r in rated)) < 1e-6
    # even results: equal ratings
    even = ratings({("p", "q"): [1.0, 0.0] * 40}, resamples=50)
    assert abs(even[0].elo - even[1].elo) < 1e-6


# --- every experiment at a tiny size ------------------------------------------------------------
def shrink(monkeypatch, name: str) -> None:
    """The smallest design that still fills every table of ``name``'s report: one game a
    job, and the Connect Four studies' depths and iterations cut (they took 40 s and 15 s)."""
    from boardzoo.experiments import connect_four_minimax, connect_four_uct

    if name == "connect-four-minimax":
        monkeypatch.setattr(connect_four_minimax, "DEFAULT_DEPTHS", (range(3, 5), range(3, 5)))
        monkeypatch.setattr(connect_four_minimax, "DEFAULT_RANDOM_DEPTHS", (3,))
        monkeypatch.setattr(connect_four_minimax, "EVALUATOR_MATCH_DEPTH", 3)
    elif name == "connect-four-uct":
        monkeypatch.setattr(connect_four_uct, "DEFAULT_ITERATIONS", 40)
        monkeypatch.setattr(connect_four_uct, "ITERATIONS", (10, 20, 30, 40))


@pytest.mark.end_to_end
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_experiment_runs_end_to_end(name, tmp_path, monkeypatch):
    shrink(monkeypatch, name)
    experiment = get(name)
    results = run(experiment, str(tmp_path), games=1, workers=1, log=quiet, progress=False)
    jobs = experiment.jobs(1, False)
    assert set(results) == {job.key for job in jobs} and all(len(r) == 1 for r in results.values())
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(lines) == len(jobs) and {json.loads(line)["job"] for line in lines} == set(results)
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# Source 00") and "|---|" in report and "## Deviations" in report
    config = json.loads((tmp_path / "run.json").read_text())
    assert config["experiment"] == name and len(config["jobs"]) == len(jobs)
    for picture in report.split("](")[1:]:  # every picture linked was drawn
        assert (tmp_path / picture.split(")")[0]).stat().st_size > 1000


def test_a_report_without_matplotlib_links_no_missing_pictures(tmp_path, monkeypatch):
    from boardzoo.experiments.framework import Experiment, Report, write_report

    class Pictured(Experiment):
        def report(self, results, jobs):
            text = "# Source 00X\n\n| a |\n|---|\n\n![wins by depth](wins.png)\n"
            return Report(text, {"wins.png": lambda path: open(path, "wb").write(b"x" * 2000)})

    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
        write_report(Pictured(), {}, [], str(tmp_path), quiet)
    report = (tmp_path / "report.md").read_text()
    assert "![wins by depth]" not in report and "Plots skipped" in report and not (tmp_path / "wins.png").exists()
    pytest.importorskip("matplotlib", reason="the plot extra is not installed (pip install '.[plot]')")
    write_report(Pictured(), {}, [], str(tmp_path), quiet)
    assert "![wins by depth](wins.png)" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "wins.png").stat().st_size == 2000


def test_the_rules_fit_plays_every_candidate_row_once_and_the_study_plays_the_fitted_env():
    from boardzoo.experiments.cantris import BOARDS, CANDIDATES, SETTINGS, _fit_key

    jobs = get("cantris-rules-fit").jobs(None, False)
    keys = {job.key for job in jobs}
    assert len(keys) == len(jobs)
    for _, options in CANDIDATES.values():
        assert {_fit_key(board, setting, options[board]) for board in BOARDS for setting, _, _ in SETTINGS} <= keys
    # candidates that play a board alike share its jobs: fewer jobs than candidates x rows
    assert len(jobs) < len(CANDIDATES) * len(BOARDS) * len(SETTINGS)
    assert "cantris_v0:board=10x5,bonus_turn=false,deal=halves" in {job.env for job in jobs}
    assert {job.env for job in get("cantris-mcts").jobs(None, False)} == {"cantris_v1:board=8x4",
                                                                          "cantris_v1:board=10x5"}


def test_full_size_is_the_published_size():
    jobs = get("cantris-mcts").jobs(None, True)
    assert {job.games for job in jobs} == {10_000}
    assert {job.games for job in get("nim-mcts").jobs(None, True) if job.key.endswith("vs-archival")} == {300}
    minimax = get("connect-four-minimax").jobs(None, True)
    design = [j for j in minimax if ": minimax " in j.key]
    # every minimax depth against every alpha-beta depth, per evaluator, both seat orders
    assert len(design) == 7 * 11 + 2 * 6 * 10 and {j.games for j in design} == {2}
    assert "simple: minimax 9 vs alphabeta 13" in {j.key for j in design}
    games = [j for j in minimax if not j.key.startswith(NO_TABLE)]
    assert len({j.seed for j in games}) == len(games)  # no two jobs share their openings
    # ... but each replay without the transposition table plays its game job's seeds
    replays = {j.key.removeprefix(NO_TABLE): j for j in minimax if j.key.startswith(NO_TABLE)}
    assert replays and all(job.seed == replays[job.key].seed and job.a + ",table=false" == replays[job.key].a
                           for job in games if job.key in replays)
    assert all("order=left" in j.a for j in design)
    uct = get("connect-four-uct").jobs(None, True)
    sweep = [j for j in uct if j.key.startswith("sweep vs heuristic")]
    # the 32 printed configurations (Tables 1-3 and the two of Table 4 alone), on [0, 1] payoffs
    assert len(sweep) == 32 and all(j.a_first and "iterations=15000" in j.a and "q=score" in j.a for j in sweep)
    signed = get("connect-four-uct-signed").jobs(None, True)
    assert [j.a.replace("q=win-lose", "q=score") for j in signed] == [j.a for j in uct]
    final_value = get("connect-four-uct-final-value").jobs(None, True)
    assert [j.a.replace("final=value", "final=visits") for j in final_value] == [j.a for j in uct]
    pairs = [j for j in uct if j.key.startswith("pair ")]
    assert len(pairs) == 6 and {j.games for j in pairs} == {80}
    assert {j.games for j in get("geister-mcts").jobs(None, False)} == {200}


def test_the_nim_study_uses_the_documents_mcts_and_its_play_out_counts():
    jobs = {job.key: job for job in get("nim-mcts").jobs(None, False)}
    strategic = jobs["mcts-vs-strategic"]
    assert "q=wins" in strategic.b and "final=value" in strategic.b and "rollout=strategic" in strategic.b
    assert jobs["at-playouts: mcts-vs-random"].a.endswith("schedule=study-random")
    assert jobs["mcts-vs-random"].env == "nim_v0:n=20..49"
    # Section 5.1's coin MCTS keeps the coin out of the tree; boardzoo's chance nodes play beside it.
    assert jobs["coin-mcts-vs-greedy"].a.endswith("chance=open")
    assert jobs["at-playouts: coin-mcts-vs-greedy"].a.endswith("chance=open")
    assert jobs["coin-mcts-vs-greedy, chance nodes"].a.endswith("chance=tree")


def test_minimax_first_moves_spread_over_all_seven_columns(tmp_path):
    """Every job has seeds of its own, so the random first column varies across the design."""
    from boardzoo.experiments.framework import play_task

    jobs = [j for j in get("connect-four-minimax").jobs(None, False) if ": minimax 3 vs" in j.key]
    columns = {play_task((job, game, False))["moves"][0][1] for job in jobs for game in range(2)}
    assert len(columns) >= 5


# --- resuming ---------------------------------------------------------------------------------
def test_a_resumed_run_gives_the_same_report(tmp_path):
    experiment = get("cantris-mcts")
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    run(experiment, str(whole), games=1, log=quiet, progress=False)
    run(experiment, str(parts), games=1, log=quiet, progress=False)
    # Interrupt the second run: keep half the games and a torn last line, as a kill would.
    lines = (parts / "games.jsonl").read_text().splitlines(keepends=True)
    (parts / "games.jsonl").write_text("".join(lines[: len(lines) // 2]) + lines[-1][:40])
    (parts / "report.md").unlink()
    with pytest.raises(ExperimentError, match="add --resume"):
        run(experiment, str(parts), games=1, log=quiet, progress=False)
    with pytest.raises(ExperimentError, match="different run"):
        run(get("nim-mcts"), str(parts), games=1, resume=True, log=quiet, progress=False)
    messages = []
    run(experiment, str(parts), games=1, resume=True, log=messages.append, progress=False)
    assert "dropped an unfinished record" in messages[0]
    assert f"{len(lines) // 2} already played" in messages[1]
    made = "## How this report was made"
    assert (parts / "report.md").read_text().split(made)[0] == (whole / "report.md").read_text().split(made)[0]
    assert len((parts / "games.jsonl").read_text().splitlines()) == len(lines)
    # Each report says how to make it again and what played its games: here two sessions.
    for folder, sessions in ((whole, [len(lines)]), (parts, [len(lines), len(lines) - len(lines) // 2])):
        report, config = (folder / "report.md").read_text(), json.loads((folder / "run.json").read_text())
        assert "Command: `boardzoo experiment run cantris-mcts --games 1`" in report
        assert [session["played"] for session in config["sessions"]] == sessions
        assert report.count("games played on") == len(sessions) and "report written by " in report
        assert all(session["code"].startswith(("commit ", "boardzoo ")) for session in config["sessions"])


def test_a_run_grown_to_more_games_keeps_its_games_and_plays_the_rest(tmp_path):
    """A larger design of the same jobs (the full Geister design after its pilot) resumes
    a run: the games played stay, the same seeds give the rest; a smaller one is refused."""
    experiment = get("cantris-mcts")
    run(experiment, str(tmp_path / "grown"), games=1, log=quiet, progress=False)
    first = (tmp_path / "grown" / "games.jsonl").read_text().splitlines()
    messages = []
    run(experiment, str(tmp_path / "grown"), games=2, resume=True, log=messages.append, progress=False)
    assert any("play more games now" in message for message in messages)
    grown = (tmp_path / "grown" / "games.jsonl").read_text().splitlines()
    assert grown[:len(first)] == first and len(grown) == 2 * len(first)
    run(experiment, str(tmp_path / "whole"), games=2, log=quiet, progress=False)
    whole = (tmp_path / "whole" / "games.jsonl").read_text().splitlines()
    strip = lambda line: {k: v for k, v in json.loads(line).items() if k not in ("decision_seconds", "probes")}  # noqa: E731
    assert sorted(map(json.dumps, map(strip, grown))) == sorted(map(json.dumps, map(strip, whole)))
    with pytest.raises(ExperimentError, match="different run"):
        run(experiment, str(tmp_path / "grown"), games=1, resume=True, log=quiet, progress=False)


def test_a_runs_record_of_sessions_is_read_with_care(tmp_path):
    """A session killed outright never wrote its count (a report says "?"), and a record
    that is no list of sessions is set aside on resume rather than read."""
    experiment = get("cantris-mcts")
    run(experiment, str(tmp_path), games=1, log=quiet, progress=False)
    config = json.loads((tmp_path / "run.json").read_text())
    config["sessions"][0]["played"] = None
    (tmp_path / "run.json").write_text(json.dumps(config))
    run(experiment, str(tmp_path), games=1, resume=True, log=quiet, progress=False)
    assert "- ? games played on " in (tmp_path / "report.md").read_text()
    config["sessions"] = 5
    (tmp_path / "run.json").write_text(json.dumps(config))
    run(experiment, str(tmp_path), games=1, resume=True, log=quiet, progress=False)
    assert "no record of the sessions" in (tmp_path / "report.md").read_text()


def test_a_terminated_run_writes_its_sessions_count_of_games(tmp_path, terminated_run):
    """SIGTERM (a batch queue's stop, a session's end) unwinds the run: the session's
    record says how many games it wrote, so that the report can count them."""
    import signal

    games = tmp_path / "games.jsonl"
    status, err = terminated_run([sys.executable, "-m", "boardzoo", "experiment", "run", "geister-mcts", "--games",
                                  "6", "--out", str(tmp_path)], 2, games)
    assert status == 128 + signal.SIGTERM, err
    written = games.read_text().count("\n")
    assert 2 <= written < 48
    assert [session["played"] for session in json.loads((tmp_path / "run.json").read_text())["sessions"]] == [written]


def test_a_run_written_before_its_probe_moved_still_resumes(tmp_path, monkeypatch):
    """The minimax study's probe moved module; a run.json naming its old path is the same run."""
    shrink(monkeypatch, "connect-four-minimax")
    experiment = get("connect-four-minimax")
    run(experiment, str(tmp_path), games=1, log=quiet, progress=False)
    config = json.loads((tmp_path / "run.json").read_text())
    assert any(job["probe"] == "boardzoo.experiments.connect_four_minimax.depth_probe" for job in config["jobs"])
    for job in config["jobs"]:
        if job["probe"]:
            job["probe"] = "boardzoo.experiments.connect_four.depth_probe"
    (tmp_path / "run.json").write_text(json.dumps(config))
    messages = []
    run(experiment, str(tmp_path), games=1, resume=True, log=messages.append, progress=False)
    assert any("already played" in message for message in messages)


def test_a_run_resumes_when_its_experiment_gains_jobs(tmp_path, monkeypatch):
    """Jobs added to a study (a deviation measured) are played on resume; the games
    already played are kept; a changed job is still another run."""
    experiment = get("cantris-mcts")
    whole = run(experiment, str(tmp_path), games=1, log=quiet, progress=False)
    jobs = experiment.jobs(1, False)
    grown = jobs + [replace(jobs[0], key="added job", seed=jobs[0].seed + 1)]
    monkeypatch.setattr(experiment, "jobs", lambda games, full: grown)
    monkeypatch.setattr(experiment, "report", lambda results, jobs: Report(f"{sorted(results)}"))
    messages = []
    results = run(experiment, str(tmp_path), games=1, resume=True, log=messages.append, progress=False)
    assert "1 job(s) this run did not have" in messages[0]
    assert f"{sum(j.games for j in jobs)} already played" in messages[1]
    assert {key: results[key] for key in whole} == whole
    assert len(results["added job"]) == jobs[0].games
    changed = [replace(grown[0], seed=grown[0].seed + 5)] + grown[1:]
    monkeypatch.setattr(experiment, "jobs", lambda games, full: changed)
    with pytest.raises(ExperimentError, match="different run"):
        run(experiment, str(tmp_path), games=1, resume=True, log=quiet, progress=False)


# --- executors ----------------------------------------------------------------------------------
def strip_timing(results):
    return {key: [{k: v for k, v in r.items() if k != "decision_seconds"} for r in records]
            for key, records in results.items()}


def test_local_workers_give_the_same_games(tmp_path):
    experiment = get("cantris-mcts")
    serial = run(experiment, str(tmp_path / "serial"), games=1, log=quiet, progress=False)
    parallel = run(experiment, str(tmp_path / "parallel"), games=1, workers=2, log=quiet, progress=False)
    assert strip_timing(serial) == strip_timing(parallel)


def test_bad_requests_are_refused_clearly(tmp_path):
    experiment = get("nim-mcts")
    with pytest.raises(ExperimentError, match="--games must be an int from 1 to"):
        run(experiment, str(tmp_path), games=0, log=quiet)
    with pytest.raises(ExperimentError, match="--executor must be one of local, ray"):
        run(experiment, str(tmp_path), games=1, executor="dask", log=quiet)
    with pytest.raises(ExperimentError, match="unknown experiment 'chess'"):
        get("chess")


def test_without_scipy_a_run_stops_before_its_games_and_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "scipy", None)  # an import of it fails, as where it is not installed
    assert main(["experiment", "run", "nim-mcts", "--games", "1", "--out", str(tmp_path / "run")]) == 2
    assert 'pip install "boardzoo[stats]" (from a checkout: pip install ".[stats]")' in capsys.readouterr().err
    assert not (tmp_path / "run" / "games.jsonl").exists()


# --- the command line ---------------------------------------------------------------------------
def test_experiment_list_and_run_from_the_command_line(tmp_path, capsys):
    assert main(["experiment", "list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in EXPERIMENTS) and "source 003" in listing and "--full" in listing
    out = tmp_path / "run"
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out)]) == 0
    assert (out / "report.md").exists()
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["experiment", "run", "cantris-mcts", "--games", "1", "--out", str(out), "--resume"]) == 0


def test_a_job_alternating_seats_describes_itself_as_before_a_first_existed():
    """run.json files written before ``a_first`` existed still match, so those runs resume."""
    from boardzoo.experiments import Job

    assert "a_first" not in Job("k", "nim_v0", "random", "greedy", 2).describe()
    assert Job("k", "nim_v0", "random", "greedy", 2, a_first=True).describe()["a_first"] is True


def test_experiment_list_cites_every_source_document(capsys):
    from boardzoo.cli import main
    from boardzoo.experiments import EXPERIMENTS
    from boardzoo.experiments.framework import citation

    assert main(["experiment", "list"]) == 0
    out = capsys.readouterr().out
    for experiment in EXPERIMENTS.values():
        cited = citation(experiment.source)
        assert cited and f"cites:    {cited}" in out
        # each default run's time is a measurement, and the list says on what machine
        assert re.search(r"\(measured: \d+ min \d+ s\)", experiment.expected_time), experiment.name
    assert "Times measured on a 2-core" in out
