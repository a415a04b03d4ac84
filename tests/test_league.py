"""League: a round robin whose pairs are the arena's games, resumable and extendable in one
results file, rated by outcomes; the CLI on top."""

import json
import math

import pytest

from boardzoo import arena, league
from boardzoo.cli import main
from boardzoo.errors import ResultsFileError, SpecError


def without_timing(records):
    return [{k: v for k, v in r.items() if k not in arena.TIMING_FIELDS} for r in records]


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def quiet(line):
    pass


def test_each_pair_plays_exactly_the_arena_games(tmp_path):
    out = tmp_path / "league.jsonl"
    specs = ["greedy", "random", "mcts:iterations=30"]
    league.run("connect_four_v0", specs, games=6, seed=4, out=str(out), progress=False, log=quiet)
    records = lines_of(out)
    assert len(records) == 3 * 6
    for a, b in league.pairings(specs):
        mine = sorted((r for r in records if (r["a"], r["b"]) == (a, b)), key=lambda r: r["game"])
        assert without_timing(mine) == without_timing(arena.run("connect_four_v0", a, b, games=6, seed=4,
                                                                progress=False))


def test_serial_and_parallel_leagues_give_the_same_tables(tmp_path):
    specs = ["greedy", "random", "mcts:iterations=20"]
    serial = league.run("nim_v0", specs, games=8, seed=2, progress=False)
    parallel = league.run("nim_v0", specs, games=8, seed=2, workers=2, progress=False)
    assert serial.pairs == parallel.pairs and serial.ratings == parallel.ratings


def test_a_league_resumes_and_grows_in_its_file_and_keeps_other_records(tmp_path):
    out = tmp_path / "league.jsonl"
    arena.run("nim_v0", "greedy", "random", games=5, seed=0, out=str(out), progress=False)  # an arena run's file
    league.run("nim_v0", ["greedy", "random"], games=5, seed=0, out=str(out), progress=False, log=quiet)
    assert len(lines_of(out)) == 5  # the arena's games are the league's: nothing replayed
    league.run("nim_v0", ["greedy", "random", "mcts:iterations=20"], games=5, seed=0, out=str(out),
               progress=False, log=quiet)
    assert len(lines_of(out)) == 15  # only the two new pairs were played
    before = out.read_text()
    result = league.run("nim_v0", ["greedy", "mcts:iterations=20"], games=5, seed=0, out=str(out), progress=False,
                        log=quiet)
    assert out.read_text() == before  # every game was on file; the pairs with random are kept, not counted
    assert [p.games for p in result.pairs] == [5] and {r.games for r in result.ratings} == {5}


def test_ratings_follow_the_outcomes():
    # Nim's greedy rule is perfect play: it must come first; random must come last.
    result = league.run("nim_v0", ["random", "mcts:iterations=40", "greedy"], games=40, seed=1, progress=False)
    assert [r.name for r in result.ratings] == ["greedy", "mcts:iterations=40", "random"]
    best, _, worst = result.ratings
    assert best.low > worst.high and best.score > 0.75 > 0.25 > worst.score
    for pair in result.pairs:
        a_rate, low, high = pair.win_rate(pair.a)
        b_rate = pair.win_rate(pair.b)[0]
        assert low <= a_rate <= high
        assert a_rate + b_rate + pair.draws / pair.games == pytest.approx(1.0)
    assert result.pair("greedy", "random").win_rate("greedy")[0] > 0.9


def test_draws_are_counted_apart_from_wins():
    # Two greedy-ish Connect Four players draw sometimes; the pair's counts must add up.
    result = league.run("connect_four_v0", ["greedy", "alphabeta:depth=2"], games=20, seed=0, progress=False)
    pair = result.pairs[0]
    assert pair.a_wins + pair.b_wins + pair.draws == pair.games == 20
    assert pair.draws > 0 and pair.a_score == pytest.approx((pair.a_wins + pair.draws / 2) / 20)
    document = result.as_json()
    assert document["pairs"][0]["draw_rate"] == pair.draws / 20


def test_bad_leagues_are_refused_clearly(tmp_path):
    with pytest.raises(SpecError, match="named twice"):
        league.run("nim_v0", ["random", "random"], games=2, progress=False)
    with pytest.raises(SpecError, match="give 2 to"):
        league.run("nim_v0", ["random"], games=2, progress=False)
    with pytest.raises(SpecError, match="needs a person"):
        league.run("nim_v0", ["random", "human"], games=2, progress=False)
    with pytest.raises(SpecError, match="games must be"):
        league.run("nim_v0", ["random", "greedy"], games=0, progress=False)
    with pytest.raises(SpecError, match="more than 10,000,000 games"):
        league.run("nim_v0", ["random", "greedy", "mcts"], games=arena.MAX_GAMES // 2, progress=False)
    out = tmp_path / "other.jsonl"
    arena.run("nim_v0", "greedy", "random", games=2, seed=7, out=str(out), progress=False)
    with pytest.raises(ResultsFileError, match="belongs to another run"):
        league.run("nim_v0", ["greedy", "random"], games=2, seed=0, out=str(out), progress=False, log=quiet)


def test_the_cli_prints_tables_json_and_errors(tmp_path, capsys):
    out = tmp_path / "cli.jsonl"
    assert main(["league", "nim_v0", "greedy", "random", "mcts:iterations=20", "--games", "6",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rating (95% CI)" in text and "win rate of the row against the column" in text and " 1. greedy" in text
    assert main(["league", "nim_v0", "greedy", "random", "mcts:iterations=20", "--games", "6",
                 "--out", str(out), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert len(document["pairs"]) == 3 and [r["name"] for r in document["ratings"]][0] == "greedy"
    assert set(document["ms_per_move"]) == {"greedy", "random", "mcts:iterations=20"}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for spec in document["ms_per_move"]:
        times = sorted(t for r in records for label in "ab" if r[label] == spec for t in r["decision_seconds"][label])
        assert document["ms_longest"][spec] == pytest.approx(1000 * times[-1])
        assert document["ms_p99"][spec] == pytest.approx(1000 * times[math.ceil(0.99 * len(times)) - 1])
        assert document["ms_per_move"][spec] <= document["ms_longest"][spec]
    assert main(["league", "nim_v0", "greedy", "random", "mcts:iterations=20", "--games", "6",
                 "--out", str(out), "--markdown"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert rows[2].startswith("| 1 | `greedy` |") and len(rows) == 2 + 3 + 2 + 3
    for row in rows[2:5]:  # the time columns: mean, 99th percentile, longest
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        spec = cells[1].strip("`")
        assert cells[-3:] == [f"{document['ms_per_move'][spec]:.1f}", f"{document['ms_p99'][spec]:.0f}",
                              f"{document['ms_longest'][spec]:.0f}"]
    matrix = {line.split(" | ")[0]: line.split(" | ")[1:] for line in rows[-3:]}
    greedy_against_random = next(p for p in document["pairs"] if {p["a"], p["b"]} == {"greedy", "random"})
    rate = greedy_against_random["a_win_rate" if greedy_against_random["a"] == "greedy" else "b_win_rate"]
    column = 1 + [r["name"] for r in document["ratings"]].index("random")
    assert matrix["| **1**"][column - 1].startswith(f"{rate[0]:.2f} ({rate[1]:.2f}..{rate[2]:.2f})")
    with pytest.raises(SystemExit) as refused:
        main(["league", "nim_v0", "greedy", "random", "--json", "--markdown"])
    assert refused.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
    assert main(["league", "nim_v0", "greedy"]) == 2
    assert "give 2 to" in capsys.readouterr().err
    # a plot that cannot be written is refused before any game is played
    fresh = tmp_path / "fresh.jsonl"
    assert main(["league", "nim_v0", "greedy", "random", "--out", str(fresh),
                 "--plot", str(tmp_path / "missing" / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().err and not fresh.exists()


def test_a_league_extends_a_published_report_playing_only_the_new_pairs(tmp_path, capsys):
    specs = ["greedy", "random", "mcts:iterations=20"]
    report = tmp_path / "report.json"
    assert main(["league", "nim_v0", *specs[:2], "--games", "6", "--json"]) == 0
    report.write_text(capsys.readouterr().out)
    out = tmp_path / "new.jsonl"
    extended = league.run("nim_v0", specs, games=6, out=str(out), progress=False,
                          known=league.read_report(str(report)))
    played = {(r["a"], r["b"]) for r in map(json.loads, out.read_text().splitlines())}
    assert played == {("greedy", "mcts:iterations=20"), ("random", "mcts:iterations=20")}
    whole = league.run("nim_v0", specs, games=6, progress=False)  # the same games, every pair played
    assert [(p.a, p.b, p.a_wins, p.draws, p.b_wins) for p in extended.pairs] == \
        [(p.a, p.b, p.a_wins, p.draws, p.b_wins) for p in whole.pairs]
    for mine, theirs in zip(extended.ratings, whole.ratings):
        assert (mine.name, mine.score, mine.games) == (theirs.name, theirs.score, theirs.games)
        assert mine.elo == pytest.approx(theirs.elo) and mine.low <= mine.elo <= mine.high
    published = json.loads(report.read_text())
    assert extended.ms_per_move["greedy"] != published["ms_per_move"]["greedy"]  # timed in its new games
    # named the other way round, a known pair is turned to match
    turned = league.run("nim_v0", ["random", "greedy"], games=6, progress=False, known=league.read_report(str(report)))
    first = published["pairs"][0]
    assert (turned.pairs[0].a_wins, turned.pairs[0].b_wins) == (first["b_wins"], first["a_wins"])
    assert turned.ms_per_move["random"] == pytest.approx(published["ms_per_move"]["random"])


def test_a_report_that_cannot_be_extended_is_refused_clearly(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert main(["league", "nim_v0", "greedy", "random", "--games", "4", "--json"]) == 0
    report.write_text(capsys.readouterr().out)
    for args, message in ((["--games", "6"], "4 games a pair; this league is nim_v0, seed 0, 6 games"),
                          (["--games", "4", "--seed", "3"], "seed 0, 4 games a pair; this league is nim_v0, seed 3")):
        assert main(["league", "nim_v0", "greedy", "random", *args, "--known", str(report)]) == 2
        assert message in capsys.readouterr().err
    document = json.loads(report.read_text())
    document["pairs"][0]["a_wins"] += 1
    for text, message in ((json.dumps(document), "does not add up"), ("[1]", "not a JSON object"),
                          ("{", "is not JSON"), (json.dumps({"pairs": []}), "no valid 'env'"),
                          (json.dumps({**document, "pairs": [{"a": "x"}]}), "a pair without"),
                          (json.dumps({**document, "pairs": [], "ms_p99": {"greedy": "fast"}}),
                           "not a number of milliseconds")):
        report.write_text(text)
        assert main(["league", "nim_v0", "greedy", "random", "--games", "4", "--known", str(report)]) == 2
        assert message in capsys.readouterr().err
    assert main(["league", "nim_v0", "greedy", "random", "--known", str(tmp_path / "none.json")]) == 2
    assert "cannot read the report" in capsys.readouterr().err


def test_the_plot_needs_its_extra_and_draws_with_it(tmp_path, monkeypatch):
    import sys

    result = league.run("nim_v0", ["greedy", "random"], games=4, progress=False)
    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "matplotlib", None)
        with pytest.raises(SpecError, match="plot extra|boardzoo\\[plot\\]"):
            league.plot(result, str(tmp_path / "x.png"))
    pytest.importorskip("matplotlib", reason="the plot extra is not installed (pip install '.[plot]')")
    league.plot(result, str(tmp_path / "league.png"))
    assert (tmp_path / "league.png").stat().st_size > 5000


def test_a_retuned_preset_never_mixes_its_games_with_the_old_ones(tmp_path, monkeypatch):
    from boardzoo.agents import PRESETS, Preset

    monkeypatch.setitem(PRESETS, "nim-quick", Preset("mcts:iterations=20", "a test preset"))
    out = tmp_path / "games.jsonl"
    arena.run("nim_v0", "nim-quick", "random", games=4, out=str(out), progress=False)
    records = lines_of(out)
    assert [r["presets"] for r in records] == [{"a": "mcts:iterations=20"}] * 4
    plain = arena.run("nim_v0", "mcts:iterations=20", "random", games=4, progress=False)
    assert [r["moves"] for r in records] == [r["moves"] for r in plain]  # the preset is its spec
    assert "presets" not in plain[0]
    before = out.read_bytes()
    monkeypatch.setitem(PRESETS, "nim-quick", Preset("mcts:iterations=40", "retuned"))
    with pytest.raises(ResultsFileError, match="stood for mcts:iterations=20; it now stands for mcts:iterations=40"):
        arena.run("nim_v0", "nim-quick", "random", games=6, out=str(out), progress=False)
    with pytest.raises(ResultsFileError, match="stood for mcts:iterations=20"):
        league.run("nim_v0", ["nim-quick", "random"], games=6, out=str(out), progress=False, log=quiet)
    assert out.read_bytes() == before
    monkeypatch.setitem(PRESETS, "nim-quick", Preset("mcts:iterations=20", "as it was"))
    record = {**records[0], "game": 9, "presets": {"c": 3}}
    with out.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    with pytest.raises(ResultsFileError, match="'presets' must map 'a' and/or 'b'"):
        league.run("nim_v0", ["nim-quick", "random"], games=6, out=str(out), progress=False, log=quiet)


def test_json_output_is_valid_json_with_null_for_figures_that_have_no_value(capsys):
    # Nim with one pawn: the first mover wins at once, so agent b never moves (no time a move).
    assert main(["league", "nim_v0:n=1", "greedy", "random", "--games", "1", "--json"]) == 0
    out = capsys.readouterr().out

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    table = json.loads(out, parse_constant=refuse)
    assert table["ms_per_move"]["random"] is None and table["ms_per_move"]["greedy"] >= 0
    assert main(["arena", "nim_v0:n=1", "greedy", "random", "--games", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert summary["b_mean_decision_ms"] is None


def test_a_record_whose_times_are_not_lists_is_refused_before_any_summary(tmp_path, capsys):
    out = tmp_path / "league.jsonl"
    assert main(["league", "nim_v0:n=5", "greedy", "random", "--games", "2", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    record = json.loads(lines[0])
    record["decision_seconds"] = {"a": 5, "b": []}
    out.write_text(json.dumps(record) + "\n" + lines[1] + "\n")
    capsys.readouterr()
    assert main(["league", "nim_v0:n=5", "greedy", "random", "--games", "2", "--out", str(out)]) == 2
    assert "'decision_seconds' of a must be a list of seconds" in capsys.readouterr().err


def test_a_short_league_off_a_terminal_still_says_how_far_it_got(capsys):
    assert main(["league", "nim_v0:n=5", "greedy", "random", "--games", "4"]) == 0
    assert "league: 4/4 games" in capsys.readouterr().err


def test_deterministic_agents_repeating_their_games_are_told_apart(capsys):
    assert main(["arena", "connect_four_v0", "alphabeta:depth=1", "alphabeta:depth=2", "--games", "6"]) == 0
    assert "note: only 2 of the 6 games differ" in capsys.readouterr().out


def test_a_league_on_random_openings_gives_every_pair_the_same_openings(tmp_path, capsys):
    specs = ["alphabeta:depth=1", "alphabeta:depth=2", "greedy"]
    out = tmp_path / "league.jsonl"
    result = league.run("connect_four_v0", specs, games=4, seed=1, out=str(out), progress=False, log=quiet,
                        opening_plies=2)
    assert result.opening_plies == 2
    assert "seats alternating on random openings of 2 plies" in league.format_markdown(result)
    records = lines_of(out)
    for game in range(4):
        assert len({tuple(map(tuple, r["moves"][:2])) for r in records if r["game"] == game}) == 1
    for a, b in league.pairings(specs):
        mine = sorted((r for r in records if (r["a"], r["b"]) == (a, b)), key=lambda r: r["game"])
        assert without_timing(mine) == without_timing(arena.run("connect_four_v0", a, b, games=4, seed=1,
                                                                progress=False, opening_plies=2))
    assert main(["league", "connect_four_v0", *specs, "--games", "4", "--seed", "1", "--out", str(out)]) == 2
    assert "random openings of 2 plies; this league is connect_four_v0, seed 1)" in capsys.readouterr().err
