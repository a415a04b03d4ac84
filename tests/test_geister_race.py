"""The race to the exits that a search adjudicates (``mcts:adjudicate=race``), the guard
of the exits at the root (``mcts:guard=exits``), and escape threats read the worse way
(``mcts:threats=worse`` and ``coin``): worked positions, the race and the guard held to
an exhaustive search of the rules wherever they settle a race of two moves or fewer, and
the agent's options."""

import random

import pytest
from geister_positions import random_midgames, recoloured

from boardzoo.agents import make
from boardzoo.errors import SpecError
from boardzoo.games.geister import GeisterState, GeisterView, position_from_board_string
from boardzoo.strategy.geister.beliefs import (
    adaptive_blue_probabilities,
    blue_probabilities,
    captures_read_cautiously,
    captures_read_warily,
    runners_read_no_likelier_red_than_a_coin,
    threats_read_worse,
)
from boardzoo.strategy.geister.race import escape_race, free_runner_moves, guarded_moves

PLAYER_0_WINS, PLAYER_1_WINS = (1.0, -1.0), (-1.0, 1.0)
# Board strings (the tournament protocol's): player_0's ghosts A-H then player_1's a-h, each
# "xy" and its colour; player_0 sits at the bottom and leaves by (0, 0) and (5, 0), player_1
# by (0, 5) and (5, 5). player_0 is to move.
# Our blue E one step from the exit (0, 0); their nearest ghost, at (1, 1), two steps from it.
NEXT_TO_EXIT = "14R24R34R44R01B25B35B45B41r31r21r11r43b33b23b13b"


def test_a_blue_one_step_from_an_exit_that_no_guard_reaches_wins_the_race():
    state = position_from_board_string(NEXT_TO_EXIT)
    assert free_runner_moves(state, 0, moves_first=True) == 2
    assert escape_race(state) == PLAYER_0_WINS


def test_a_guard_next_to_the_exit_or_the_other_side_to_move_stops_it():
    guarded = position_from_board_string(NEXT_TO_EXIT.replace("11r", "10r"))  # their c beside the exit
    assert free_runner_moves(guarded, 0, moves_first=True) is None
    assert escape_race(guarded) is None
    # their guard at (1, 1) is two steps from the exit: in time when they move first
    state = position_from_board_string(NEXT_TO_EXIT)
    assert free_runner_moves(state, 0, moves_first=False) is None


def test_a_red_does_not_run_and_an_own_red_on_the_exit_blocks_it():
    red = position_from_board_string(NEXT_TO_EXIT.replace("01B", "01R").replace("14R", "14B"))
    assert escape_race(red) is None
    blocked = position_from_board_string(NEXT_TO_EXIT.replace("14R", "00R"))  # our A on the exit itself
    assert free_runner_moves(blocked, 0, moves_first=True) is None


def test_a_runner_goes_around_its_own_ghosts():
    # E at (0, 2): the straight way up is blocked by our red A at (0, 1), so E needs
    # four steps (around by (1, 2), (1, 1), (1, 0)) and their guards must be farther
    state = position_from_board_string("01R15R25R35R02B99B99B99B14r24r34r99r32b42b99b99b")
    assert free_runner_moves(state, 0, moves_first=True) == 5  # 4 steps, then off
    assert escape_race(state) is None  # five moves: beyond the horizon
    assert escape_race(state, horizon=5) == PLAYER_0_WINS
    shut = position_from_board_string("01R12R25R35R02B99B99B99B14r24r34r99r32b42b99b99b")  # B at (1, 2) too
    assert free_runner_moves(shut, 0, moves_first=True) is None  # the way round is long: their guards are nearer


def test_their_free_runner_wins_when_we_have_none_and_the_mover_wins_a_tie():
    # their e on its exit (0, 5), none of ours next to it
    theirs = position_from_board_string("13R23R33R43R22B25B35B45B41r31r21r11r05b30b20b10b")
    assert escape_race(theirs) == PLAYER_1_WINS
    # both sides one step from an exit: the side to move leaves first
    both = position_from_board_string("13R23R33R43R01B52B53B54B41r31r21r12r04b32b42b34b")
    assert free_runner_moves(both, 1, moves_first=False) == 2
    assert escape_race(both) == PLAYER_0_WINS


def test_a_race_is_left_alone_when_the_loser_threatens_to_leave_or_the_turn_limit_comes_first():
    # our E runs as before, but their e stands on their exit (0, 5): our F beside it at
    # (1, 5) makes it no free runner, yet it leaves first unless F takes it
    threat = position_from_board_string("13R23R33R43R01B15B52B53B41r31r21r12r05b32b42b34b")
    assert free_runner_moves(threat, 0, moves_first=True) == 2
    assert free_runner_moves(threat, 1, moves_first=False) is None
    assert escape_race(threat) is None
    assert not forces_win(threat, 0, 3)  # the rules agree: running loses a move to the capture
    late = position_from_board_string(NEXT_TO_EXIT, plies=198, max_turns=200)
    assert escape_race(late) is None  # our runner leaves on the third ply from now: past the limit


def forces_win(state: GeisterState, winner: int, plies: int) -> bool:
    """Can ``winner`` force a win within ``plies`` plies? (Every move of the other side
    answered; the rules alone decide.)"""
    if state.is_terminal():
        return state.winner == winner
    if plies == 0:
        return False
    outcomes = []
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        outcomes.append(child)
    if state.current_player() == winner:
        return any(forces_win(child, winner, plies - 1) for child in outcomes)
    return all(forces_win(child, winner, plies - 1) for child in outcomes)


def settled_races(seed: int, wanted: int) -> list[tuple[GeisterState, int, int]]:
    """Positions of random games in which a race of at most two moves is settled: the
    state, the winner and the plies until its runner leaves."""
    rng = random.Random(seed)
    found = []
    while len(found) < wanted:
        state = GeisterState(200, {0: tuple(rng.sample(range(8), 4)), 1: tuple(rng.sample(range(8), 4))})
        while not state.is_terminal():
            result = escape_race(state, horizon=2)
            if result is not None:
                winner = 0 if result == PLAYER_0_WINS else 1
                moves = free_runner_moves(state, winner, winner == state.player)
                found.append((state.clone(), winner, 2 * moves - (winner == state.player)))
                break
            state.apply(rng.choice(state.legal_actions()))
    return found


def test_every_race_it_settles_within_two_moves_is_won_by_its_winner_whatever_the_other_side_does():
    races = settled_races(3, 200)
    assert {plies for _, _, plies in races} == {1, 2, 3, 4}  # all four kinds of race were met
    for state, winner, plies in races:
        assert forces_win(state, winner, plies), (state.pos, state.red, state.player)


# --- the guard of the exits -------------------------------------------------------------------
# their e at (0, 4), one step from our corner (0, 5); of our ghosts only F at (2, 5) can
# stand next to that corner in time, by stepping west
RUNNER_AT_THE_CORNER = "13R23R33R43R22B25B35B45B41u31u21u11u04u30u20u10u"


def test_the_guard_allows_only_the_move_that_keeps_a_runner_from_going_free():
    view = GeisterView(position_from_board_string(RUNNER_AT_THE_CORNER), 0)
    assert [view.action_label(a) for a in guarded_moves(view)] == ["F,W"]
    agent = make("mcts:iterations=30,belief=uniform,guard=exits", seed=5)
    assert view.action_label(agent.act({}, view)) == "F,W"


def purple(view: GeisterView) -> GeisterState:
    """A full state of ``view`` with every hidden ghost blue."""
    state = view.determinize(random.Random(0))
    for g in view.unknown_ghosts():
        state.red[g] = False
    return state


def test_every_move_the_guard_refuses_lets_a_ghost_read_as_blue_force_its_escape():
    """Wherever the guard refuses a move for a runner two moves or fewer from leaving,
    the rules agree: with every hidden ghost blue, the opponent forces a win after it.
    And the guard reads the view alone: recolouring the opponent's ghosts changes nothing."""
    rng = random.Random(8)
    refused = 0
    for state in random_midgames(rng, 400, most_plies=120):
        seat = state.player
        view = GeisterView(state, seat)
        allowed = guarded_moves(view)
        assert allowed == guarded_moves(GeisterView(recoloured(state, rng), seat))
        legal = view.legal_actions()
        assert set(allowed) <= set(legal) and allowed
        if len(allowed) == len(legal):
            continue
        for action in set(legal) - set(allowed):
            after = purple(view)
            after.apply(action)
            moves = free_runner_moves(after, 1 - seat, moves_first=True)
            assert moves is not None
            if moves <= 2:
                assert forces_win(after, 1 - seat, 2 * moves - 1), (state.pos, view.action_label(action))
                refused += 1
    assert refused >= 10


# --- threats read the worse way ----------------------------------------------------------------
def test_a_ghost_about_to_leave_is_drawn_as_blue_as_the_adaptive_model_has_it_the_others_likelier_red():
    # their e at (0, 4), one step from their exit (0, 5); a at (4, 1) far from it
    state = position_from_board_string("13R23R33R43R22B25B35B45B41u31u21u11u04u30u20u10u")
    state.advance[12] = state.moved[12] = 4
    view = GeisterView(state, 0)
    unknown = view.unknown_ghosts()
    believed = [0.01 if g == 12 else 1.0 for g in unknown]  # a belief sure that e is red
    blues = 4
    before = blue_probabilities(believed, blues)
    drawn = blue_probabilities(threats_read_worse(view, unknown, believed), blues)
    adaptive = adaptive_blue_probabilities(view, unknown, blues)
    e = unknown.index(12)
    assert drawn[e] == pytest.approx(adaptive[e], abs=1e-4)  # as the sampler draws it, exactly so many blue
    assert adaptive[e] > 0.5 > before[e]
    assert all(d < b for i, (d, b) in enumerate(zip(drawn, before)) if i != e)  # the others likelier red
    assert threats_read_worse(view, [g for g in unknown if g != 12], [1.0] * 7) == [1.0] * 7  # no threat: as given


def is_threat(view: GeisterView, ghost: int, moves: int = 2) -> bool:
    """Whether the opponent's ``ghost`` is ``moves`` moves or fewer from leaving by one of
    the viewer's corners, by plain distances on the 6x6 board."""
    exits = [(0, 5), (5, 5)] if view.seat == 0 else [(0, 0), (5, 0)]  # ours, as (column, row)
    column, row = view.pos[ghost] % 6, view.pos[ghost] // 6
    return min(abs(column - x) + abs(row - y) for x, y in exits) + 1 <= moves


def test_threats_are_drawn_at_least_as_blue_as_the_adaptive_model_has_them():
    """Each ghost two moves or fewer from leaving by one of our corners (plain distances
    on the 6x6 board) is drawn blue, exactly so many blue, at least as often as the
    adaptive model has it; every other ghost no more often than the belief had it; odds
    that already meet the bounds come back as they were."""
    rng = random.Random(21)
    threats_seen = 0
    for state in random_midgames(rng, 300, most_plies=120):
        view = GeisterView(state, state.player)
        opponent = 1 - view.seat
        unknown = view.unknown_ghosts()
        blues = 4 - view.lost[opponent][0]
        if not 0 < blues < len(unknown):
            continue
        odds = [rng.choice([0.01, 1.0, 100.0]) for _ in unknown]
        read = threats_read_worse(view, unknown, odds)
        threat = [is_threat(view, g) for g in unknown]
        believed, drawn = blue_probabilities(odds, blues), blue_probabilities(read, blues)
        adaptive = adaptive_blue_probabilities(view, unknown, blues)
        if all(b >= a - 1e-6 for b, a, t in zip(believed, adaptive, threat) if t):
            assert read == odds
        for b, d, a, t in zip(believed, drawn, adaptive, threat):
            if t:
                assert d >= a - 1e-4
            else:
                assert d <= b + 1e-9
        threats_seen += sum(threat)
    assert threats_seen >= 20


def test_runners_are_drawn_at_least_as_blue_as_a_coin_and_the_adaptive_model_have_them():
    """threats=coin: each ghost four moves or fewer from leaving by one of our corners
    (plain distances on the 6x6 board) is drawn blue, exactly so many blue, at least as
    often as a coin (the share of blues among the unknown ghosts) and the adaptive model
    have it, wherever some colouring meets every bound; every other ghost no more often
    than the belief had it; odds that already meet the bounds come back as they were."""
    rng = random.Random(22)
    runners_seen = bounded = 0
    for state in random_midgames(rng, 300, most_plies=120):
        view = GeisterView(state, state.player)
        unknown = view.unknown_ghosts()
        blues = 4 - view.lost[1 - view.seat][0]
        if not 0 < blues < len(unknown):
            continue
        odds = [rng.choice([0.01, 1.0, 100.0]) for _ in unknown]
        read = runners_read_no_likelier_red_than_a_coin(view, unknown, odds)
        runner = [is_threat(view, g, moves=4) for g in unknown]
        coin = blues / len(unknown)
        adaptive = adaptive_blue_probabilities(view, unknown, blues)
        bounds = [max(a, coin) if r else 0.0 for a, r in zip(adaptive, runner)]
        believed, drawn = blue_probabilities(odds, blues), blue_probabilities(read, blues)
        if all(b >= bound - 1e-6 for b, bound in zip(believed, bounds)):
            assert read == odds
        for b, d, bound, r in zip(believed, drawn, bounds, runner):
            if not r:
                assert d <= b + 1e-9
            elif sum(bounds) <= blues - 0.1:  # some colouring meets every bound, with room
                assert d >= bound - 1e-4
                bounded += 1
        runners_seen += sum(runner)
    assert runners_seen >= 50 and bounded >= 20


@pytest.mark.parametrize("read_captures, most_blue", [
    (captures_read_cautiously, lambda coin, threat: coin),
    (captures_read_warily, lambda coin, threat: coin if threat else min(coin, 0.5)),
])
def test_with_one_red_left_the_ghosts_we_could_take_read_at_least_as_red_as_a_coin(read_captures, most_blue):
    """cautious: every ghost we could take at most as likely blue as a coin has it; wary:
    those that are no threat (more than two moves from leaving by one of our corners) at
    most as likely blue as red too; as the sampler draws them (exactly so many blue), so
    the other ghosts are only ever read likelier blue. Checked against plain distances on
    the 6x6 board, wherever some colouring meets every bound."""
    rng = random.Random(12)
    checked = 0
    for state in random_midgames(rng, 400, most_plies=120):
        view = GeisterView(state, state.player)
        seat, opponent = view.seat, 1 - view.seat
        unknown = view.unknown_ghosts()
        if not unknown:
            continue
        odds = [rng.choice([0.01, 1.0, 100.0]) for _ in unknown]
        blues = 4 - view.lost[opponent][0]
        read = read_captures(view, unknown, odds)
        if view.lost[opponent][1] != 3:
            assert read == odds  # two reds or more left: as believed
            continue
        ours = [divmod(view.pos[g], 6) for g in range(8 * seat, 8 * seat + 8) if view.pos[g] >= 0]
        takeable = [any(abs(row - r0) + abs(column - c0) == 1 for r0, c0 in ours)
                    for row, column in (divmod(view.pos[g], 6) for g in unknown)]
        if not any(takeable):
            assert read == odds  # nothing to take: as believed
            continue
        coin, believed, drawn = blues / len(unknown), blue_probabilities(odds, blues), blue_probabilities(read, blues)
        bounds = [most_blue(coin, is_threat(view, g)) if take else 1.0 for g, take in zip(unknown, takeable)]
        if all(b <= bound for b, bound in zip(believed, bounds)):
            assert read == odds  # no bound broken: as believed
        for b, d, bound, take in zip(believed, drawn, bounds, takeable):
            if not take:
                assert d >= b - 1e-9
            elif sum(bounds) >= blues + 0.1:  # some colouring meets every bound, with room
                assert d <= bound + 1e-4
        checked += 1
    assert checked >= 5  # enough positions with one red left


def test_the_worse_reading_reads_the_view_alone():
    """Recolouring the opponent's ghosts in the full state leaves the reading unchanged."""
    rng = random.Random(4)
    for state in random_midgames(rng, 40):
        seat, other = state.player, recoloured(state, rng)
        views = [GeisterView(s, seat) for s in (state, other)]
        unknown = views[0].unknown_ghosts()
        odds = [rng.random() + 0.1 for _ in unknown]
        for read in (threats_read_worse, runners_read_no_likelier_red_than_a_coin):
            assert read(views[0], unknown, odds) == read(views[1], unknown, odds)


# --- the agent's options -----------------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("mcts:adjudicate=nothing", "unknown adjudicator 'nothing'"),
    ("mcts:guard=nothing", r"unknown guard 'nothing'; there are: exits \(geister\)"),
    ("mcts:threats=sometimes,belief=adaptive",
     r"unknown reading of threats 'sometimes'; there are: as-believed \(every game\); worse \(geister\)"),
    ("mcts:match=always,belief=adaptive", "match must be one of none, learn, learn-in-game, learn-calibrated"),
    ("mcts:captures=never,belief=adaptive",
     r"unknown reading of captures 'never'; there are: as-believed \(every game\); "
     r"cautious \(geister\); wary \(geister\)"),
])
def test_unknown_settings_are_refused_by_name(spec, message):
    with pytest.raises(SpecError, match=message):
        make(spec)


@pytest.mark.parametrize("spec, message", [
    ("mcts:adjudicate=race,iterations=10", "connect_four has no adjudicator 'race'"),
    ("mcts:guard=exits,iterations=10", "connect_four has no guard 'exits'"),
    ("mcts:threats=worse,iterations=10", "connect_four has no worse reading of threats"),
    ("mcts:match=learn,iterations=10", "connect_four has no model of an opponent to learn over a match"),
    ("mcts:captures=cautious,iterations=10", "connect_four has no cautious reading of captures"),
    ("mcts:captures=wary,iterations=10", "connect_four has no wary reading of captures"),
])
def test_a_game_without_the_knowledge_refuses_it(spec, message):
    from boardzoo.games.connect_four import ConnectFourState

    with pytest.raises(ValueError, match=message):
        make(spec).check(ConnectFourState())


def test_an_adjudicated_leaf_is_scored_by_the_race_and_no_other_leaf_is():
    class Counting:
        def __init__(self):
            self.calls = 0

        def evaluate(self, state):
            self.calls += 1
            return (0.0, 0.0)

    state = position_from_board_string(NEXT_TO_EXIT)
    agent = make("mcts:adjudicate=race,iterations=1", evaluator=Counting())
    agent.check(state)
    leaf = agent._leaf(state)
    assert leaf(state) == PLAYER_0_WINS and agent.evaluator.calls == 0
    unsettled = position_from_board_string(NEXT_TO_EXIT.replace("11r", "10r"))
    assert leaf(unsettled) == (0.0, 0.0) and agent.evaluator.calls == 1


def test_with_the_race_and_worse_threats_it_stops_a_blue_about_to_escape():
    # their e (it advanced four rows) one step from its exit (0, 5); our F at (2, 5) must
    # step beside the exit or E at (0, 3) take it; a belief sure e is red would let it go
    state = position_from_board_string("12R22R32R42R03B25B35B45B41u31u21u11u04u30u20u10u")
    state.advance[12] = state.moved[12] = 4
    view = GeisterView(state, 0)
    agent = make("mcts:belief=uniform,adjudicate=race,threats=worse,iterations=400,rollout=tactical", seed=1)
    action = agent.act(None, view)
    assert action in (4 * 5 + 3, 4 * 4 + 2) or action // 4 == 4  # F west, or E takes/blocks
