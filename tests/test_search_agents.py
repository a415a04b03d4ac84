"""MCTS, minimax and alpha-beta: checked by outcomes, against theory and against each other."""

import math
import random

import pytest
from geister_positions import placements_drawn
from hypothesis import given, settings
from hypothesis import strategies as st

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.agents.minimax import MinimaxAgent
from boardzoo.errors import SpecError
from boardzoo.games import CHANCE, ConnectFourState, NimState
from boardzoo.games.geister import GeisterView
from boardzoo.games.geister.rules import GeisterState
from boardzoo.games.model import play_sequence
from boardzoo.strategy.connect_four import three_in_window_score, three_in_window_v2_score


def win_rate(env_spec, a, b, games, seed=0, workers=2):
    summary = arena.summarize(arena.run(env_spec, a, b, games=games, seed=seed, workers=workers))
    return summary["a_wins"] / summary["games"], summary


# --- MCTS: theory and outcomes ------------------------------------------------------------
@pytest.mark.parametrize("pawns", [n for n in range(1, 12) if n % 4])
def test_mcts_takes_the_winning_number_of_pawns_in_nim(pawns):
    agent = make("mcts:iterations=2000", seed=pawns)
    assert agent.act(None, NimState(pawns, k=3)) + 1 == pawns % 4


def test_mcts_beats_random_at_connect_four():
    rate, _ = win_rate("connect_four_v0", "mcts:iterations=1000", "random", games=24)
    assert rate >= 0.95


def test_mcts_handles_the_coin_and_beats_greedy_at_nim_with_a_coin():
    rate, summary = win_rate("nim_v0:coin=true", "mcts:iterations=400", "greedy", games=120)
    assert rate >= 0.70, summary  # source 000: 86 %


def expectimax_values(pawns, k):
    """Exact values of Nim with a coin (player to move's side), by plain recursion."""
    @__import__("functools").lru_cache(None)
    def to_move(n):  # value for the player to move with n pawns
        return max(after_move(n - take) for take in range(1, min(k, n) + 1))

    def after_move(n):  # value for the mover once n pawns are left and the coin is due
        if n == 0:
            return 1.0
        tails = -to_move(n)
        heads = 1.0 if n == 1 else -to_move(n - 1)
        return 0.5 * tails + 0.5 * heads

    return {take: after_move(pawns - take) for take in range(1, min(k, pawns) + 1)}


@pytest.mark.parametrize("pawns", [4, 5, 6, 8, 9])
def test_mcts_and_expectiminimax_average_the_coin_correctly(pawns):
    exact = expectimax_values(pawns, 3)
    best = max(exact.values())
    state = NimState(pawns, k=3, coin=True)
    agent = make("mcts:iterations=4000", seed=1)
    action = agent.act(None, state)
    assert math.isclose(exact[action + 1], best, abs_tol=1e-9)
    for child in agent.stats["children"]:
        if child["visits"] > 400:  # well-sampled children estimate their exact value
            assert abs(child["value"] - exact[child["action"] + 1]) < 0.15
    searcher = MinimaxAgent(depth=30)
    value, move = searcher.search(state, 30)
    assert math.isclose(exact[move + 1], best) and abs(value) <= 2 * 30


def test_mcts_with_open_chance_keeps_the_coin_out_of_the_tree_and_still_weighs_it():
    """chance=open (source 000's coin MCTS): the tree holds decisions only, every node's
    children are moves some run of outcomes allowed, and at 4 pawns taking 3 and hoping
    for heads (an even chance, the document's own reading of its Table 4) is found."""
    agent = make("mcts:chance=open,iterations=3000", seed=2)
    assert agent.act(None, NimState(4, k=3, coin=True)) == 2
    best = next(c for c in agent.stats["children"] if c["action"] == 2)
    assert abs(best["value"]) < 0.15  # win-lose payoffs: an even chance is 0
    agent = make("mcts:chance=open,iterations=2000", seed=3)
    agent.act(None, NimState(12, k=3, coin=True))
    stack = [(agent.root, 0)]
    while stack:
        node, depth = stack.pop()
        assert depth <= 12
        assert all(child.mover in (0, 1) and 0 <= child.action < 3 for child in node.children or [])
        stack.extend((child, depth + 1) for child in node.children or [])
    tree = make("mcts:iterations=2000", seed=3)
    tree.act(None, NimState(12, k=3, coin=True))
    assert agent.stats["path_max"] < tree.stats["path_max"]  # no chance level between the moves


def test_mcts_variants_all_play_and_report_statistics():
    state = play_sequence(ConnectFourState(), [3, 3, 2])
    for spec in ["mcts:iterations=300,policy=ucbv,c=1.4,zeta=0.5",
                 "mcts:iterations=300,policy=ucb-minimal,c1=11,c2=1",
                 "mcts:iterations=300,q=wins,final=value,c_final=0",
                 "mcts:iterations=300,nthr=3,max_rollout=10",
                 "mcts:iterations=300,solver=true",
                 "mcts:time=0.02"]:
        agent = make(spec, seed=0)
        action = agent.act(None, state.clone())
        assert state.is_legal(action), spec
        stats = agent.stats
        assert stats["action"] == action
        assert stats["iterations"] >= 1 and stats["tree_size"] > 1 and stats["seconds"] > 0
        assert 0 <= stats["convincity"] <= 1
        assert stats["path_max"] >= stats["path_median"] >= 1 and stats["path_mean"] >= 1
        assert sum(c["visits"] for c in stats["children"]) == stats["root_visits"]


def test_mcts_q_wins_and_win_lose_are_different_payoffs():
    state = play_sequence(ConnectFourState(), [3, 3])
    wins = make("mcts:iterations=200,q=wins", seed=0)
    wins.act(None, state)
    assert all(0 <= c["value"] <= 1 for c in wins.stats["children"])
    win_lose = make("mcts:iterations=200,q=win-lose", seed=0)
    win_lose.act(None, state)
    assert any(c["value"] < 0 for c in win_lose.stats["children"])


@pytest.mark.statistical
@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_mcts_score_payoffs_with_c_search_as_win_lose_payoffs_with_2c(engine):
    """win-lose = 2 score - 1, so UCB1's mean + c sqrt(ln N / n) on [0, 1] payoffs ranks
    the children as on win-lose payoffs with 2c: the same seed, the same search (visits
    alike), the values mapped by v -> 2v - 1."""
    if engine == "compiled":
        pytest.importorskip("numba", reason="the fast extra is not installed (pip install '.[fast]')")
    state = play_sequence(ConnectFourState(), [3, 3, 2])
    score = make(f"mcts:iterations=400,q=score,c=0.7,engine={engine}", seed=4)
    win_lose = make(f"mcts:iterations=400,q=win-lose,c=1.4,engine={engine}", seed=4)
    assert score.act(None, state) == win_lose.act(None, state)
    for mine, theirs in zip(score.stats["children"], win_lose.stats["children"]):
        assert mine["visits"] == theirs["visits"] and 0 <= mine["value"] <= 1
        assert 2 * mine["value"] - 1 == pytest.approx(theirs["value"])


def test_mcts_is_reproducible_with_an_iteration_budget():
    state = play_sequence(ConnectFourState(), [3, 2, 4])
    runs = [make("mcts:iterations=500", seed=9) for _ in range(2)]
    assert runs[0].act(None, state) == runs[1].act(None, state)
    assert runs[0].stats["children"] == runs[1].stats["children"]


def test_mcts_time_budget_ends_the_search():
    # (How closely the budget is kept is measured in bench/bench_mcts.py, not here.)
    agent = make("mcts:time=0.02", seed=0)
    agent.act(None, ConnectFourState())
    assert 1 <= agent.stats["iterations"] and agent.stats["root_visits"] == agent.stats["iterations"]
    both = make("mcts:time=60,iterations=50", seed=0)  # whichever ends first
    both.act(None, ConnectFourState())
    assert both.stats["iterations"] == 50


def test_mcts_tree_reuse_keeps_the_subtree_of_the_moves_played():
    agent = make("mcts:iterations=400,reuse=true", seed=0)
    state = ConnectFourState()
    first = agent.act(None, state)
    assert agent.stats["reused_tree"] is False
    state.apply(first)
    state.apply(3)  # the opponent's reply
    agent.act(None, state)
    assert agent.stats["reused_tree"] is True
    assert agent.stats["root_visits"] > 400 and agent.stats["tree_size"] > 401
    fresh = make("mcts:iterations=400", seed=0)
    fresh.act(None, state)
    assert fresh.stats["root_visits"] == 400
    agent.reset()
    agent.act(None, state)
    assert agent.stats["reused_tree"] is False


def test_mcts_reuses_the_tree_across_the_coin():
    agent = make("mcts:iterations=500,reuse=true", seed=0)
    state = NimState(20, k=3, coin=True)
    rng = random.Random(0)
    state.apply(agent.act(None, state))
    state.apply(state.sample_chance(rng))
    state.apply(0)
    state.apply(state.sample_chance(rng))
    agent.act(None, state)
    assert agent.stats["reused_tree"] is True


def test_mcts_expansion_threshold_grows_a_smaller_tree():
    state = ConnectFourState()
    one_by_one = make("mcts:iterations=600", seed=0)
    one_by_one.act(None, state)
    threshold = make("mcts:iterations=600,nthr=10", seed=0)
    threshold.act(None, state)
    assert one_by_one.stats["tree_size"] == 601
    assert threshold.stats["tree_size"] < 400


def test_mcts_strategic_rollouts_and_unknown_policies():
    # near the end the tree holds the whole game: the strategic searcher finds the win
    agent = make("mcts:iterations=1000,rollout=strategic", seed=0)
    assert agent.act(None, NimState(7, k=3)) + 1 == 3
    with pytest.raises(ValueError, match="connect_four has no roll-out policy 'strategic'; policies are: random"):
        make("mcts:iterations=10,rollout=strategic").act(None, ConnectFourState())


def test_mcts_solver_proves_a_forced_win_and_takes_the_fastest():
    # X to move; column 3 wins at once, other moves only later
    state = play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 5])
    agent = make("mcts:iterations=5000,solver=true", seed=0)
    assert agent.act(None, state) == 3
    assert agent.stats["proven"] == 1 and agent.stats["iterations"] < 5000
    # Nim: every pile that is not a multiple of 4 is a proven win, taking n % 4
    for pawns in (5, 6, 7, 9, 10, 11):
        solver = make("mcts:iterations=20000,solver=true", seed=0)
        assert solver.act(None, NimState(pawns, 3)) + 1 == pawns % 4
        assert solver.stats["proven"] == 1


def test_mcts_solver_proves_a_lost_pile():
    solver = make("mcts:iterations=20000,solver=true", seed=0)
    solver.act(None, NimState(8, 3))
    assert solver.stats["proven"] == -1


def test_mcts_tree_views():
    agent = make("mcts:iterations=200", seed=0)
    assert agent.tree_text() == "(no search yet)"
    agent.act(None, ConnectFourState())
    text = agent.tree_text(depth=2, best=2)
    lines = text.splitlines()
    assert lines[0] == "root: 200 visits, to move: player_0"
    assert lines[1].startswith("  p0:") and lines[2].startswith("    p1:")
    assert len(lines) == 1 + 2 + 4
    dot = agent.tree_dot(depth=2)
    assert dot.startswith("digraph mcts {") and dot.rstrip().endswith("}")
    assert dot.count("->") >= 7


def test_mcts_bad_parameters():
    for spec, message in [("mcts:policy=ucb2", "policy must be one of ucb1, ucbv, ucb-minimal"),
                          ("mcts:iterations=0", "iterations must be an int from 1 to"),
                          ("mcts:q=draws", "q must be one of"),
                          ("mcts:time=-1", "time must be a positive number"),
                          ("mcts:nthr=-2", "nthr must be an int >= 0"),
                          ("mcts:depth=3", "unknown parameter 'depth'; parameters are: iterations, time, policy")]:
        with pytest.raises(ValueError, match=message):
            make(spec)


# --- minimax and alpha-beta ------------------------------------------------------------------
@st.composite
def positions(draw):
    state = ConnectFourState()
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 20))):
        actions = state.legal_actions()
        if not actions:
            break
        state.apply(actions[rng.randrange(len(actions))])
    return state


@settings(max_examples=40)
@given(positions(), st.integers(1, 4), st.sampled_from(["simple", "three", "three2"]))
def test_alphabeta_returns_exactly_minimax_value_and_move_with_fewer_nodes(state, depth, evaluator):
    if state.is_terminal():
        return
    minimax = make(f"minimax:depth={depth},eval={evaluator}")
    alphabeta = make(f"alphabeta:depth={depth},eval={evaluator}")
    heuristic = minimax._heuristic(state)
    value_m, move_m = minimax.search(state, depth, heuristic)
    alphabeta.nodes = minimax.nodes = 0
    value_m, move_m = minimax.search(state, depth, heuristic)
    value_a, move_a = alphabeta.search(state, depth, heuristic)
    assert (value_a, move_a) == (value_m, move_m)
    assert alphabeta.nodes <= minimax.nodes


@pytest.mark.parametrize("coin", [False, True])
def test_alphabeta_equals_minimax_where_positions_recur_at_different_depths(coin):
    # In Nim the same pile recurs after different numbers of plies (1+1+1 vs 3 pawns):
    # alpha-beta's table must not mix their values up.
    for pawns in range(2, 26):
        state = NimState(pawns, 3, coin=coin)
        assert make("alphabeta:depth=6").search(state, 6) == make("minimax:depth=6").search(state, 6), pawns


@settings(max_examples=25)
@given(positions(), st.integers(1, 5), st.sampled_from(["simple", "three2"]))
def test_alphabeta_table_changes_nodes_only(state, depth, evaluator):
    if state.is_terminal():
        return
    with_table = make(f"alphabeta:depth={depth},eval={evaluator}")
    without = make(f"alphabeta:depth={depth},eval={evaluator},table=false")
    heuristic = with_table._heuristic(state)
    # The same value and move (the table's move hints may reorder a search: no node bound).
    assert with_table.search(state, depth, heuristic) == without.search(state, depth, heuristic)
    assert without._table is None and with_table._table is not None


def test_alphabeta_visits_far_fewer_nodes_at_depth():
    state = play_sequence(ConnectFourState(), [3, 3, 2, 4])
    minimax, alphabeta = make("minimax:depth=5"), make("alphabeta:depth=5")
    minimax.act(None, state)
    alphabeta.act(None, state)
    assert minimax.stats["value"] == alphabeta.stats["value"]
    assert alphabeta.stats["nodes"] * 5 < minimax.stats["nodes"]


def test_minimax_finds_the_fastest_win_and_blocks():
    win_now = play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 5])
    for spec in ("minimax:depth=3", "alphabeta:depth=5"):
        agent = make(spec)
        assert agent.act(None, win_now) == 3
        assert agent.stats["value"] == 2 * agent.depth - 1
    must_block = play_sequence(ConnectFourState(), [0, 6, 1, 6, 2])
    assert make("alphabeta:depth=4").act(None, must_block) == 3


def test_seed_002_evaluators():
    # X has three in a row on the bottom with an empty cell at column 3
    state = play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 5])
    assert three_in_window_score(state, 0, 6) == pytest.approx(0.8 * 6)
    assert three_in_window_score(state, 1, 6) == pytest.approx(-0.8 * 6)
    assert three_in_window_v2_score(state, 0, 6) == 6 - 1  # nothing below the empty cell
    # O: three on the bottom row (cols 0-2, gap at col 3 row 0); X: three on the row above
    # (gap at col 3 row 1, one empty cell below it). Bit of (col, row) = col * 7 + row.
    stacked = play_sequence(ConnectFourState(), [6, 0, 0, 1, 1, 2, 2])
    assert stacked.threat_cells(1) == 1 << (3 * 7 + 0)
    assert stacked.threat_cells(0) == 1 << (3 * 7 + 1)
    assert three_in_window_score(stacked, 0, 6) == 0.0  # both have a window: they cancel
    assert three_in_window_v2_score(stacked, 1, 6) == (6 - 1 - 0) - (6 - 1 - 1)
    assert three_in_window_v2_score(stacked, 0, 6) == -1
    assert three_in_window_v2_score(stacked, 0, 2) == 1 - 1  # both floored at 1


def test_random_first_and_time_budget():
    agent = make("alphabeta:depth=6,random_first=true", seed=0)
    first_moves = {make("alphabeta:depth=6,random_first=true", seed=s).act(None, ConnectFourState())
                   for s in range(30)}
    assert len(first_moves) >= 5
    agent.act(None, ConnectFourState())
    assert agent.stats["random_first"] is True
    assert make("alphabeta:depth=6,random_first=true").act(None, play_sequence(ConnectFourState(), [3])) in range(7)
    timed = make("alphabeta:time=0.05")
    state = play_sequence(ConnectFourState(), [3, 3])
    assert state.is_legal(timed.act(None, state)) and timed.stats["depth"] >= 1


def test_iterative_deepening_stops_when_the_whole_tree_is_seen():
    agent = make("alphabeta:time=60")
    agent.act(None, NimState(5, k=3))
    assert agent.stats["depth"] <= 5 and agent.stats["value"] > 0  # 5 pawns: 5 plies at most


def test_search_agents_beat_random():
    rate_ab, _ = win_rate("connect_four_v0", "alphabeta:depth=4,eval=three2", "random", games=24)
    rate_mm, _ = win_rate("connect_four_v0", "minimax:depth=3", "random", games=24)
    assert rate_ab >= 0.95 and rate_mm >= 0.85


def test_unknown_evaluator():
    with pytest.raises(ValueError, match="nim has no evaluator 'three'; evaluators are: simple"):
        make("alphabeta:eval=three").act(None, NimState(5))


def test_chance_is_not_a_player():
    state = NimState(10, coin=True)
    state.apply(0)
    assert state.current_player() == CHANCE
    with pytest.raises(ValueError, match="chance event"):
        make("alphabeta").act(None, state)
    with pytest.raises(ValueError, match="chance event"):
        make("mcts:iterations=5").act(None, state)


def test_tree_reuse_on_hidden_information_never_plays_on_a_finished_sample():
    # Regression: the kept sample could end where the real game goes on; looking for the
    # new root below it applied moves to a finished game ("illegal action 25: the game is over").
    from boardzoo import arena

    records = arena.run("geister_v0", "random", "mcts:iterations=40,reuse=true", games=10, seed=1)
    assert len(records) == 10 and all(r["forfeit"] is None for r in records)


def geister_endgames(count: int, seed: int):
    """Seat views of Geister positions late in random games, where a capture of an unknown
    ghost ends the game in some samples and not in others."""
    from boardzoo.games.geister import GeisterState, GeisterView

    rng, found = random.Random(seed), []
    while len(found) < count:
        state = GeisterState(max_turns=200)
        while not state.is_terminal() and len(found) < count:
            actions = state.legal_actions()
            state.apply(actions[int(rng.random() * len(actions))])
            seat = state.current_player()
            if seat >= 0 and not state.placing and max(state.lost[1 - seat]) >= 3 and rng.random() < 0.3:
                found.append(GeisterView(state, seat))
    return found


@pytest.mark.parametrize("nthr", [1, 3])
def test_determinized_full_expansion_gives_children_the_player_who_moved(nthr):
    # Regression: with nthr > 0 new children took the mover recorded from the first sample
    # that reached their parent, which could be a finished game (TERMINAL): such children
    # never received payoffs and looked like 0-valued moves.
    for k, view in enumerate(geister_endgames(12, seed=nthr)):
        agent = make(f"mcts:iterations=300,nthr={nthr},rollout=forward,max_rollout=30", seed=k)
        agent.act(None, view)
        stack = [(agent.root, view.current_player())]
        while stack:
            node, to_move = stack.pop()
            for child in node.children or []:
                assert child.mover == to_move  # players alternate in Geister, whatever the sample
                if child.visits:
                    # every visit was paid: a mover's payoffs are +-1 or 0 (a draw)
                    assert child.wins <= child.visits and abs(child.total) <= child.visits
                stack.append((child, 1 - to_move))
        assert sum(c.visits for c in agent.root.children) == 300


@pytest.mark.parametrize("spec", ["mcts:iterations=20", "mcts:iterations=20,policy=puct",
                                  "flatmc:playouts=1", "minimax:depth=1", "alphabeta:depth=2"])
def test_a_search_draws_its_secret_placement_at_random_every_game(spec):
    """A search that picked the placement it values most would pick the same one every
    game (minimax's first best, always ABCD), and the first red captured would start
    telling the opponent the rest: every searching agent draws it, uniformly here."""
    chosen = placements_drawn(spec, 60)
    # 60 draws from 70 sets: about 40 distinct expected; the most frequent one 3 or 4 times.
    assert len(set(chosen)) >= 30 and max(chosen.count(c) for c in chosen) <= 7, sorted(chosen)


def test_with_secret_search_mcts_plays_its_searched_placement_as_before():
    """``secret=search`` is the old way: the search's own choice, so a search with a
    prior that always favours one set plays it every game."""
    class Favouring:  # every position even, one set favoured: PUCT's visits follow the prior
        def evaluate(self, state):
            return 0.0, 0.0

        def prior(self, state):
            actions = state.legal_actions()
            return [(a, 0.9 if a == actions[5] else 0.1 / (len(actions) - 1)) for a in actions]

    def chosen(secret: str) -> set[int]:
        return {make(f"mcts:policy=puct,iterations=50,secret={secret}", seed=seed, evaluator=Favouring())
                .act(None, GeisterView(GeisterState(), 0)) for seed in range(12)}

    favoured = GeisterState().legal_actions()[5]
    drawn = chosen("draw")
    assert chosen("search") == {favoured} and favoured in drawn and len(drawn) >= 2
    with pytest.raises(SpecError, match="secret must be one of draw, search"):
        make("mcts:secret=always")


# --- evaluators and PUCT ------------------------------------------------------------------------
class Oracle:
    """Nim's exact values and winning moves, as an evaluator: what a perfect network would say."""

    def evaluate(self, state):
        if state.pawns % (state.k + 1):
            v = 1.0  # the player to move wins
        else:
            v = -1.0
        return (v, -v) if state.current_player() == 0 else (-v, v)

    def prior(self, state):
        good = state.pawns % (state.k + 1) - 1
        return [(action, 0.97 if action == good else 0.01) for action in state.legal_actions()]


@pytest.mark.parametrize("pawns", [n for n in range(5, 16) if n % 4])
def test_puct_with_a_perfect_evaluator_plays_the_winning_move_in_few_iterations(pawns):
    agent = make("mcts:policy=puct,iterations=8", seed=pawns, evaluator=Oracle())
    assert agent.act(None, NimState(pawns, k=3)) + 1 == pawns % 4


def test_puct_priors_steer_visits_and_uniform_priors_without_a_prior():
    agent = make("mcts:policy=puct,iterations=200", seed=0, evaluator=Oracle())
    agent.act(None, NimState(13, k=3))
    children = {c["action"]: c for c in agent.stats["children"]}
    assert children[0]["prior"] == pytest.approx(0.97 / 0.99)
    assert children[0]["visits"] > 150
    plain = make("mcts:policy=puct,iterations=50", seed=0)
    plain.act(None, NimState(13, k=3))
    assert {round(c["prior"], 6) for c in plain.stats["children"]} == {round(1 / 3, 6)}


@pytest.mark.parametrize("k", [1, 2, 8])
def test_forced_playouts_visit_every_root_move_by_its_prior(k):
    """forced=k: each root child gets at least sqrt(k * prior * N) visits (within one, the
    last iteration can come before its turn), however poor the oracle says it is, and the
    winning move still gets the most."""
    iterations = 400
    agent = make(f"mcts:policy=puct,iterations={iterations},forced={k}", seed=k, evaluator=Oracle())
    agent.act(None, NimState(13, k=3))
    for child in agent.root.children:
        assert child.visits >= math.sqrt(k * child.prior * iterations) - 1
    plain = make(f"mcts:policy=puct,iterations={iterations}", seed=k, evaluator=Oracle())
    plain.act(None, NimState(13, k=3))
    poor = sum(c.visits for c in agent.root.children if c.prior < 0.5)
    assert poor > sum(c.visits for c in plain.root.children if c.prior < 0.5)
    assert max(agent.root.children, key=lambda c: c.visits).action == 0


def test_forced_playouts_apply_at_the_root_only():
    from boardzoo.agents.mcts.selection import puct
    from boardzoo.agents.mcts.tree import Node

    children = [Node(0, 0, 0.98), Node(1, 0, 0.02)]
    children[0].visits, children[0].total = 100, 50.0
    forced, plain = puct(forced=2.0), puct()
    assert forced.at_root(children, 100) is children[1]  # 0 visits < sqrt(2 * 0.02 * 100) = 2
    assert forced(children, 100) is plain(children, 100) is children[0]  # below the root: PUCT
    children[1].visits, children[1].total = 3, -3.0
    assert forced.at_root(children, 102) is children[0]  # its forced visits made: PUCT again


def test_forced_is_a_puct_parameter():
    from boardzoo.errors import SpecError

    with pytest.raises(SpecError, match="forced"):
        make("mcts:forced=2")


def test_warming_up_evaluates_once_on_a_state_the_search_could_meet():
    """A network's first evaluation loads compiled code: warm_up pays it before the clock.
    On hidden information the evaluator is asked about a full state, never the view."""
    from boardzoo.arena import first_model
    from boardzoo.envs import make as make_env

    class Counting(Oracle):
        def __init__(self):
            self.seen = []

        def evaluate(self, state):
            self.seen.append(state)
            return (0.0, 0.0)

    for env, full in (("nim_v0", NimState), ("geister_v0", GeisterState)):
        counting = Counting()
        agent = make("mcts:policy=puct,iterations=4", seed=0, evaluator=counting)
        model = first_model(make_env(env))
        agent.check(model)
        agent.warm_up(model)
        assert len(counting.seen) == 1 and type(counting.seen[0]) is full


def test_heuristic_value_as_the_leaf_evaluation():
    agent = make("mcts:value=three,iterations=300", seed=0)
    # X threatens to complete the bottom row: O must block column 4 (index 3)
    state = play_sequence(ConnectFourState(), [0, 0, 1, 1, 2])
    assert agent.act(None, state) == 3
    with pytest.raises(ValueError, match="has no evaluator 'three'"):
        make("mcts:value=three,iterations=5").act(None, NimState(5))


@pytest.mark.parametrize("evaluator, message", [
    (object(), "needs an evaluate\\(state\\) or a prior\\(state\\) method"),
    (type("Loud", (), {"evaluate": lambda self, s: (2.0, -2.0)})(), "two numbers in \\[-1, 1\\]"),
    (type("Odd", (), {"evaluate": lambda self, s: 0.5})(), "two numbers in \\[-1, 1\\]"),
    (type("Wrong", (), {"prior": lambda self, s: [(99, 1.0)]})(), "legal action, probability >= 0"),
    (type("Negative", (), {"prior": lambda self, s: [(0, -1.0)]})(), "legal action, probability >= 0"),
])
def test_bad_evaluators_fail_clearly(evaluator, message):
    from boardzoo.errors import SpecError

    try:
        agent = make("mcts:policy=puct,iterations=20", seed=0, evaluator=evaluator)
    except SpecError as error:
        assert __import__("re").search(message, str(error))
        return
    with pytest.raises(ValueError, match=message):
        agent.act(None, NimState(9))


@pytest.mark.parametrize("spec, message", [
    ("mcts:value=three,q=wins", "q=wins counts the wins"),
    ("mcts:policy=puct,q=score", "q=score is another scale"),
    ("mcts:chance=open,reuse=true", "drop reuse=true or chance=open"),
    ("mcts:chance=open,solver=true", "drop solver=true or chance=open"),
    ("mcts:chance=open,engine=compiled", "chance=open need engine=python"),
    ("mcts:chance=nodes", "chance must be one of tree, open"),
    ("mcts:policy=ucb1,zeta=0.5", "belongs to policy=ucbv"),
    ("mcts:final=visits,c_final=1", "belongs to final=value"),
    ("mcts:policy=ucb2", "policy must be one of ucb1, ucbv, ucb-minimal, puct"),
])
def test_part_parameters_belong_to_their_part(spec, message):
    from boardzoo.errors import SpecError

    with pytest.raises(SpecError, match=message):
        make(spec)


def test_evaluate_and_value_together_are_refused():
    from boardzoo.errors import SpecError

    with pytest.raises(SpecError, match="give one"):
        make("mcts:value=three", evaluator=Oracle())


def test_observations_of_a_state_match_the_env(tmp_path):
    """What a learned evaluator sees inside the search is what the env shows that seat."""
    from boardzoo.envs import make as make_env
    from boardzoo.games.registry import game, games

    short = {"geister": {"max_turns": 30}}  # every env of every game, Geister's kept short
    for name, kwargs in [(env, short.get(each.name, {})) for each in games().values() for env in each.envs]:
        env = make_env(name, **kwargs)
        env.reset(seed=3)
        rng = random.Random(3)
        for agent in env.agent_iter():
            observation, _, done, truncated, _ = env.last()
            if done or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            encode = game(env.unwrapped.game.game_name).observation
            assert (encode(env.unwrapped.game, seat) == observation["observation"]).all()
            legal = [a for a, ok in enumerate(observation["action_mask"]) if ok]
            env.step(legal[int(rng.random() * len(legal))])


# --- options the source studies need ------------------------------------------------------------
def test_minimax_order_left_breaks_ties_by_the_leftmost_column():
    """On the empty board every column scores 0 at depth 2 with the simple evaluator: the
    minimax study keeps the first value found scanning left to right (column 0); the
    default searches (and keeps) the centre first."""
    for algorithm in ("minimax", "alphabeta"):
        assert make(f"{algorithm}:depth=2,order=left").act(None, ConnectFourState()) == 0
        assert make(f"{algorithm}:depth=2").act(None, ConnectFourState()) == 3
    with pytest.raises(ValueError, match="order must be one of centre, left"):
        make("alphabeta:order=right")


def test_order_left_and_centre_agree_on_values():
    """The order changes which of equal moves is kept, never the value."""
    rng = random.Random(3)
    for _ in range(20):
        state = ConnectFourState()
        for _ in range(rng.randrange(4, 14)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        left, centre = make("alphabeta:depth=4,order=left"), make("alphabeta:depth=4")
        left.act(None, state.clone())
        centre.act(None, state.clone())
        assert left.stats["value"] == centre.stats["value"]


def test_mcts_schedule_takes_each_decisions_iterations_from_the_study():
    from boardzoo.strategy.nim.study import TABLES

    agent = make("mcts:schedule=study-random,q=wins,final=value", seed=0)
    for pawns in (3, 13, 30):
        agent.act(None, NimState(pawns, 3))
        assert agent.stats["iterations"] == round(TABLES["random"][pawns].playouts)
    with pytest.raises(ValueError, match="drop iterations="):
        make("mcts:schedule=study-random,iterations=10")
    with pytest.raises(ValueError, match="connect_four has no iteration schedule 'study-random'"):
        make("mcts:schedule=study-random").act(None, ConnectFourState())


@given(st.lists(st.integers(0, 60), max_size=40))
def test_path_length_summaries_are_the_plain_mean_median_and_max(lengths):
    import statistics

    from boardzoo.agents.mcts.statistics import length_summary

    found = length_summary("path", lengths)
    if lengths:
        assert found == {"path_mean": sum(lengths) / len(lengths), "path_median": statistics.median(lengths),
                         "path_max": max(lengths)}
        assert type(found["path_median"]) is type(statistics.median(lengths))
    else:
        assert found == {"path_mean": 0.0, "path_median": 0, "path_max": 0}


def test_leaf_depths_of_the_final_tree():
    """From 3 pawns (K = 3) the whole game tree has leaves at depths 1, 2, 2, 3: a search
    long enough to build it all reports their mean 2, median 2 and maximum 3 (the Nim
    study's Table 2 prints 2.0000 / 2 / 3 at n = 3). The study's settings: q=wins, the
    final move by the best win ratio."""
    agent = make("mcts:iterations=500,q=wins,c=1.4142,final=value", seed=0)
    agent.act(None, NimState(3, 3))
    stats = agent.stats
    assert (stats["leaf_depth_mean"], stats["leaf_depth_median"], stats["leaf_depth_max"]) == (2, 2, 3)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_decisive_move_is_played_whatever_the_priors_made_of_it(engine):
    """Connect Four, X to move with three in a row: a search whose priors hide the win
    and whose budget is too small to find it plays another move, unless decisive=true."""
    state = play_sequence(ConnectFourState(), [0, 6, 1, 6, 2, 5])

    class Blind:
        def prior(self, position):
            return [(action, 1e-6 if action == 3 else 1.0) for action in position.legal_actions()]

    if engine == "compiled":  # a seed whose one iteration went elsewhere
        pytest.importorskip("numba")
        seed = next(seed for seed in range(50)
                    if make("mcts:engine=compiled,iterations=1", seed=seed).act(None, state) != 3)
        blind, sees = (make(f"mcts:engine=compiled,iterations=1{extra}", seed=seed) for extra in ("", ",decisive=true"))
    else:
        blind, sees = (make(f"mcts:policy=puct,iterations=3{extra}", seed=0, evaluator=Blind())
                       for extra in ("", ",decisive=true"))
    assert blind.act(None, state) != 3
    assert sees.act(None, state) == 3


def test_on_hidden_information_a_move_is_decisive_only_if_it_wins_in_every_sample():
    from boardzoo.agents.mcts.final import decisive_move
    from boardzoo.games.geister.information import GeisterView

    state = GeisterState(max_turns=200)
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    view = GeisterView(state, state.current_player())
    rng = random.Random(0)
    assert decisive_move(lambda: view.determinize(rng), hidden=True) is None  # nothing wins at the start
    # random play until the mover has a blue ghost on an exit: leaving by it wins in every sample
    while True:
        if state.is_terminal():
            state = GeisterState(max_turns=200)
        state.apply(rng.choice(state.legal_actions()))
        if state.placing or state.is_terminal():
            continue
        view = GeisterView(state, state.current_player())
        escapes = [a for a in state.legal_actions() if (after := state.clone()).apply(a) is None
                   and after.is_terminal() and after.how_it_ended() == "escape"]
        if escapes:
            break
    assert decisive_move(lambda: view.determinize(rng), hidden=True) in escapes


def _child(action: int, payoffs: list[float]):
    from boardzoo.agents.mcts.tree import Node

    node = Node(action, 0)
    node.visits, node.total, node.sum_sq = len(payoffs), sum(payoffs), sum(p * p for p in payoffs)
    return node


def test_lcb_plays_the_surely_better_move_the_priors_visited_less():
    """A capture that loses at once in 7 samples of 10 (else wins), visited most because
    the prior was sure of it, against a quiet move valued a little better on 160 visits
    of steady values: visits plays the capture, lcb the quiet move."""
    from boardzoo.agents.mcts.final import FINAL

    capture = _child(0, [-1.0] * 245 + [0.3] * 105)  # mean -0.61, spread wide
    quiet = _child(1, [-0.45, -0.55] * 80)  # mean -0.50, spread narrow
    rare = _child(2, [1.0] * 3)  # best mean, but under a tenth of the visits
    root = _child(-1, [])
    assert FINAL.build("visits", {})(root, [capture, quiet, rare]) is capture
    assert FINAL.build("lcb", {})(root, [capture, quiet, rare]) is quiet
    assert FINAL.build("lcb", {"lcb_share": 0.0})(root, [capture, quiet, rare]) is rare


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 1.0]), min_size=0, max_size=40),
                min_size=1, max_size=6),
       st.floats(0.0, 3.0), st.floats(0.0, 1.0))
def test_lcb_chooses_the_highest_bound_among_the_well_visited(payoff_lists, z, share):
    from boardzoo.agents.mcts.final import FINAL

    children = [_child(i, payoffs) for i, payoffs in enumerate(payoff_lists)]
    chosen = FINAL.build("lcb", {"lcb_z": z, "lcb_share": share})(_child(-1, []), children)
    most = max(c.visits for c in children)
    trusted = [c for c in children if c.visits >= max(share * most, 2)]

    def bound(c):
        mean = c.total / c.visits
        return mean - z * math.sqrt(max(c.sum_sq / c.visits - mean * mean, 0.0) / c.visits)

    if not trusted:
        assert chosen.visits == most
    else:
        assert chosen in trusted and all(bound(chosen) >= bound(c) - 1e-12 for c in trusted)


def test_lcb_refuses_a_share_above_one():
    with pytest.raises(ValueError, match="lcb_share is a share"):
        make("mcts:final=lcb,lcb_share=2")
