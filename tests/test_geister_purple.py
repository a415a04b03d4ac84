"""Geister's purple alpha-beta player and the adaptive opponent model: the purple game's
rules on worked positions, the belief's inference from offers and revealed colours, the
search's decisions where one answer is right, and outcomes against other players."""

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from purple_positions import random_position

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.errors import SpecError
from boardzoo.games.geister import GeisterView, position_from_board_string
from boardzoo.strategy.geister.beliefs import (
    BLUFFER_PRIOR,
    adaptive_blue_probabilities,
    belief_adaptive,
    blue_probabilities,
    bluffer_probability,
)
from boardzoo.strategy.geister.purple import PurpleSearch
from boardzoo.strategy.geister.purple_position import (
    ESCAPE_PRICE,
    LAST_RED_RISK,
    OUR_DISTANCE,
    OUR_DISTANCE_RINGS,
    OUR_EXIT_RINGS,
    OUR_EXITS,
    RACE_WIN,
    STEPS,
    THEIR_EXIT_RINGS,
    THEIR_EXITS,
    UNCOVERED,
    WIN,
    Position,
    board_key,
    nearest_plain,
    nearest_ring,
    position_of,
)

N, E, S, W = range(4)


def move(ghost: str, direction: int) -> int:
    return 4 * "ABCDEFGH".index(ghost) + direction


def view_of(text: str, **history) -> GeisterView:
    """Player_0's view of a full board string, with per-ghost history counters set
    (``offered={8: 3}`` ...) as if the game had gone that way."""
    state = position_from_board_string(text, 0, 200)
    for name, counts in history.items():
        for ghost, value in counts.items():
            getattr(state, name)[ghost] = value
    return GeisterView(state, 0)


def bit(*squares: int) -> int:
    return sum(1 << s for s in squares)


# --- the purple game's rules --------------------------------------------------------------
def test_a_capture_that_may_be_the_fourth_red_loses_but_not_once_every_red_left_is_known():
    search = PurpleSearch()
    # our ghost on 14, theirs on 8: one red of theirs left (takes=1)
    unknown = Position(red=0, blue=bit(14), purple=bit(8), marked=0, takes=1, hidden_reds=1,
                       our_reds=4, our_blues=1, blue_odds={8: 0.5})
    assert search.play_ours(unknown, 14, 8) is None  # it may well be the last red: we lose
    # a likely blue is a gamble worth pricing: a blue taken, less its risk priced like an escape
    likely = Position(red=0, blue=bit(14), purple=bit(8), marked=0, takes=1, hidden_reds=1,
                      our_reds=4, our_blues=1, blue_odds={8: 1 - LAST_RED_RISK / 2})
    gamble = search.play_ours(likely, 14, 8)
    assert gamble is not None and gamble.takes == 1 and gamble.purple == 0
    assert gamble.gain == pytest.approx(1 - LAST_RED_RISK / 2 * ESCAPE_PRICE / search.weights[1])
    # the only red left is known (marked) elsewhere: the ghost on 8 is surely blue
    known = Position(red=0, blue=bit(14), purple=bit(8, 20), marked=bit(20), takes=1, hidden_reds=0,
                     our_reds=4, our_blues=1, blue_odds={8: 0.9})
    after = search.play_ours(known, 14, 8)
    assert after is not None and after.gain == 1.0 and after.takes == 1 and after.purple == bit(20)
    # taking the known red is the fourth red
    assert search.play_ours(known, 14, 20) is None
    # a capture that may be red counts as red and is valued by its odds of blue
    two_left = Position(red=0, blue=bit(14), purple=bit(8), marked=0, takes=2, hidden_reds=2,
                        our_reds=4, our_blues=1, blue_odds={8: 0.25})
    after = search.play_ours(two_left, 14, 8)
    assert after.takes == 1 and after.hidden_reds == 1 and after.gain == 0.25


def test_with_our_last_red_a_cautious_opponent_does_not_capture_and_a_bold_one_does():
    search = PurpleSearch()
    position = Position(red=bit(14), blue=bit(20), purple=bit(8, 26), marked=0, takes=4, hidden_reds=4,
                        our_reds=1, our_blues=1)
    assert search.play_theirs(position, 8, 14) is None  # our last red: it loses
    taken = search.play_theirs(position, 26, 20)  # our last blue: it wins, if it dares
    assert taken is not None and taken.our_blues == 0 and taken.blue == 0

    def value(boldness: float) -> float:
        search.boldness, search.deadline = boldness, math.inf
        return search.their_turn(position, 2, -WIN - 1, WIN + 1, 1)

    cautious, bold = value(0.0), value(1.0)
    assert abs(cautious) < WIN / 2  # it does not take the blue next to it
    assert bold == -WIN + 2  # it does, and we have no blue left
    assert value(0.25) == pytest.approx(0.75 * cautious + 0.25 * bold)
    position.our_reds = 2  # with two reds of ours left any opponent takes the blue
    assert value(0.0) == -WIN + 2


def test_a_ghost_moves_with_its_odds_of_blue():
    search = PurpleSearch()
    position = Position(red=0, blue=bit(14), purple=bit(8), marked=0, takes=4, hidden_reds=4,
                        our_reds=4, our_blues=1, blue_odds={8: 0.7})
    after = search.play_theirs(position, 8, 9)
    assert after.blue_odds == {9: 0.7} and position.blue_odds == {8: 0.7}


# --- the adaptive opponent model ------------------------------------------------------------
# player_0 (us) at the bottom; player_1's ghosts a..h are 8..15
OPEN = "14R24R34R44R15B25B35B45B41r31r21r11r40b30b20b10b"


def test_revealed_blues_tell_a_bluffer_from_a_plain_player():
    prior = bluffer_probability(view_of(OPEN))
    assert prior == pytest.approx(BLUFFER_PRIOR)
    # we took two of its reds; each had stepped next to our ghosts on most of its moves:
    # a bluffer's bait, or the ghosts of a plain player that offers everything
    taken = OPEN.replace("41r31r", "99r99r")
    reds_only = bluffer_probability(view_of(taken, offered={8: 4, 9: 3}, moved={8: 5, 9: 5}))
    # ... and a blue that had moved six times, never next to ours: a bluffer
    taken = OPEN.replace("41r31r", "99r99r").replace("40b", "99b")
    bluffer = bluffer_probability(view_of(taken, offered={8: 4, 9: 3}, moved={8: 5, 9: 5, 12: 6}))
    # we took two of its blues, and they too had stepped next to ours all the time
    taken = OPEN.replace("40b30b", "99b99b")
    plain = bluffer_probability(view_of(taken, offered={12: 4, 13: 3}, moved={12: 5, 13: 5}))
    assert plain < 0.01 < prior < reds_only < bluffer and bluffer > 0.99


def test_hidden_ghosts_tell_a_bluffer_by_how_their_offers_split():
    moved = {g: 5 for g in range(8, 16)}
    # four ghosts offered themselves on 4 of 5 moves, four never did: bait and shielded blues
    split = bluffer_probability(view_of(OPEN, offered={8: 4, 9: 4, 10: 4, 11: 4}, moved=moved))
    # all eight offered themselves on 2 of 5 moves: a bluffer's blues would not
    alike = bluffer_probability(view_of(OPEN, offered={g: 2 for g in range(8, 16)}, moved=moved))
    assert alike < 0.01 and split > 0.99


def test_a_bluffers_offered_ghosts_are_red_and_a_plain_players_advanced_ghosts_are_blue():
    # a (8) stepped next to ours on each of its 4 moves; b (9) moved 4 times, never next to
    # ours and 4 rows forward; the rest never moved
    history = {"offered": {8: 4}, "moved": {8: 4, 9: 4}, "advance": {8: 2, 9: 4}}
    # c, d were reds that had offered themselves, h a blue that kept out of reach
    bluffing = OPEN.replace("21r11r", "99r99r").replace("10b", "99b")
    view = view_of(bluffing, **history | {"offered": {8: 4, 10: 3, 11: 3}, "moved": {8: 4, 9: 4, 10: 3, 11: 3, 15: 6}})
    unknown = view.unknown_ghosts()
    odds = dict(zip(unknown, belief_adaptive(view, unknown)))
    assert odds[8] < 0.05 * min(odds[g] for g in unknown if g != 8)
    rushing = OPEN.replace("40b30b", "99b99b")  # e, f were blues that had rushed past ours
    view = view_of(rushing, **history | {"offered": {8: 4, 12: 2, 13: 2}, "moved": {8: 4, 9: 4, 12: 4, 13: 4}})
    unknown = view.unknown_ghosts()
    odds = dict(zip(unknown, belief_adaptive(view, unknown)))
    assert odds[9] > 3 * odds[14] and odds[8] > 0.3 * odds[14]  # offering says nothing here


def test_a_likely_bluffers_bait_stays_unlikely_blue_however_far_it_advanced():
    # a (8) stepped next to ours on 3 of its 4 moves and advanced 4 rows; c and d (10, 11)
    # offered on 2 and 1 of 3 moves, b (9) moved twice quietly: a bluffer, about 64 %
    view = view_of(OPEN, offered={8: 3, 10: 2, 11: 1}, moved={8: 4, 9: 2, 10: 3, 11: 3}, advance={8: 4, 9: 1})
    unknown = view.unknown_ghosts()
    assert 0.5 < bluffer_probability(view) < 0.8
    exact = dict(zip(unknown, adaptive_blue_probabilities(view, unknown, 4)))
    assert exact[8] < 0.35 and sum(exact.values()) == pytest.approx(4)
    # mixing the two readings' odds, the plain one's 1.5^4 for the advance would swamp
    # the bluffer's near-zero odds for the offers, and a would look blue
    mixed = dict(zip(unknown, blue_probabilities(belief_adaptive(view, unknown), 4)))
    assert mixed[8] > 0.6


def test_a_ghost_that_declined_to_escape_is_red_to_both_kinds_of_opponent():
    view = view_of(OPEN, declined={8: 1})
    unknown = view.unknown_ghosts()
    odds = dict(zip(unknown, belief_adaptive(view, unknown)))
    assert odds[8] < 0.1 * min(odds[g] for g in unknown if g != 8)


# --- the search's decisions ----------------------------------------------------------------
def brute_force_blue_probabilities(weights, blues):
    """The reference: every colouring with ``blues`` blue ghosts, weighted by the product
    of its blue ghosts' odds."""
    totals, whole = [0.0] * len(weights), 0.0
    for chosen in itertools.combinations(range(len(weights)), blues):
        weight = math.prod(weights[g] for g in chosen)
        whole += weight
        for g in chosen:
            totals[g] += weight
    return [t / whole for t in totals]


@given(st.lists(st.floats(0.001, 1000.0), min_size=1, max_size=8), st.data())
def test_blue_probabilities_match_every_colouring_counted(weights, data):
    blues = data.draw(st.integers(0, len(weights)))
    exact = blue_probabilities(weights, blues)
    assert exact == pytest.approx(brute_force_blue_probabilities(weights, blues), rel=1e-9, abs=1e-12)
    assert sum(exact) == pytest.approx(blues)
    assert all(0.0 <= p <= 1.0 for p in exact)


def test_one_ghost_with_great_odds_does_not_make_the_others_red():
    """Three blues among four ghosts, one of them almost surely blue: the other two blues
    are among the other three, about 2/3 each (weight / total would give them 0.06)."""
    probabilities = blue_probabilities([100.0, 1.0, 1.0, 1.0], 3)
    assert probabilities[0] > 0.99
    assert probabilities[1:] == pytest.approx([2 / 3] * 3, abs=0.01)


def test_it_escapes_and_walks_a_blue_out_when_nothing_can_stop_it():
    agent = make("purple:time=1", seed=0)
    on_exit = view_of("14R24R34R44R00B25B35B45B41r31r21r11r40b30b20b13b")
    assert agent.act(None, on_exit) in (move("E", N), move("E", W))
    next_to_exit = view_of("14R24R34R44R01B25B35B45B41r31r21r11r43b33b23b13b")
    assert agent.act(None, next_to_exit) == move("E", N)  # onto the exit square (0, 0); nothing reaches it


def test_it_takes_a_ghost_on_our_exit_unless_a_bluffers_bait_may_be_the_last_red():
    # player_1's ghost e stands on player_1's exit (0, 5) next to our F at (1, 5)
    text = "12R22R32R42R02B15B35B45B99r99r21r11r05b30b20b10b"
    plain = view_of(text, moved={12: 5}, advance={12: 5})
    assert make("purple:time=1", seed=0).act(None, plain) == move("F", W)
    # a bluffer (its taken reds a, b had offered themselves, its taken blue h had kept out
    # of reach), and e stepped next to ours on every one of its 5 moves: likely bait, but
    # the threat is read as the worse kind, and a red taken costs less than an escape
    bluffer = text.replace("10b", "99b")
    bait = view_of(bluffer, moved={8: 4, 9: 4, 12: 5, 15: 6}, offered={8: 4, 9: 4, 12: 5}, advance={12: 5})
    assert make("purple:time=1", seed=0).act(None, bait) == move("F", W)
    # with three of its reds taken (c too had offered itself), a bait taken is likely the
    # last red, a certain loss: it is left on the exit
    last = view_of(bluffer.replace("21r", "99r"), moved={8: 4, 9: 4, 10: 4, 12: 5, 15: 6},
                   offered={8: 4, 9: 4, 10: 4, 12: 5}, advance={12: 5})
    assert make("purple:time=1", seed=0).act(None, last) != move("F", W)


def test_it_stops_a_blue_that_would_escape_in_two_moves():
    # player_1's e (surely blue: every red left is... unknown, but it advanced 4 rows and
    # never offered) is at (0, 4), one step from its exit (0, 5); our F at (2, 5) must
    # block the exit or take it
    view = view_of("12R22R32R42R03B25B35B45B41r31r21r11r04b30b20b10b", moved={12: 4}, advance={12: 4})
    action = make("purple:time=1", seed=0).act(None, view)
    assert action in (move("F", W), move("E", S)) or action // 4 == 4  # E at (0, 3) takes it (south)


# --- the agent -------------------------------------------------------------------------------
def test_purple_beats_random_and_the_rushing_player():
    # searched to a fixed depth, not a time budget: the outcome does not depend on the machine
    for opponent, least in (("random", 0.9), ("greedy", 0.6)):
        summary = arena.summarize(arena.run("geister_v0", "purple:time=none,depth=3", opponent, 10, seed=7))
        assert summary["a_wins"] / summary["games"] >= least, (opponent, summary)


def test_the_expert_is_the_purple_player_with_the_profile_belief():
    expert = make("geister-expert", seed=0)
    assert expert.name == "purple" and expert.belief == "profile" and expert.time_budget == 0.17
    assert expert.search.hunt == 3.0 and expert.search.repeat == 40.0
    assert expert.search.race_weight == 1.0 and expert.search.red_pull == 0.6 and expert.search.bait == 0.0
    assert expert.search.caution == 2.0


@pytest.mark.parametrize("spec, message", [
    ("purple:belief=psychic", "unknown belief 'psychic'"),
    ("purple:time=-1", "time"),
    ("purple:depth=0", "depth"),
    ("purple:time=none", "time=none needs depth"),
    ("purple:hunt=-1", "hunt must be a number from 0 to 1000"),
    ("purple:repeat=2000", "repeat must be a number from 0 to 1000"),
    ("purple:race=-0.5", "race must be a number from 0 to 1000"),
    ("purple:red_pull=x", "red_pull"),
    ("purple:bait=true", "bait"),
    ("purple:caution=-1", "caution must be a number from 0 to 1000"),
    ("purple:engine=turbo", "engine must be one of auto, python, compiled"),
])
def test_bad_parameters_are_refused_clearly(spec, message):
    with pytest.raises((SpecError, ValueError), match=message):
        make(spec, seed=0)


def test_it_plays_geister_only():
    with pytest.raises(SpecError, match="plays geister only, not nim"):
        arena.run("nim_v0", "purple", "random", 1, seed=0)


def test_the_same_seed_plays_the_same_game_when_the_search_is_not_cut_by_time():
    runs = [arena.run("geister_v0:max_turns=60", "purple:time=none,depth=2", "random", 2, seed=5, progress=False)
            for _ in range(2)]
    assert [r["moves"] for r in runs[0]] == [r["moves"] for r in runs[1]]


def test_time_is_the_whole_move_reading_the_colours_included(monkeypatch):
    """The search gets what is left of time= after the colours were read."""
    from boardzoo.agents import purple as purple_agent

    clock = iter([10.0, 10.05])  # the move starts; the readings took 50 ms
    monkeypatch.setattr(purple_agent.time, "perf_counter", lambda: next(clock))
    given_seconds = []
    agent = make("geister-expert", seed=0)
    monkeypatch.setattr(agent.search, "best_move",
                        lambda position, seconds, *rest: given_seconds.append(seconds) or ((8, 2), 0.0))
    agent.act({}, view_of("14R24R34R44R00B25B35B45B41r31r21r11r40b30b20b13b"))
    assert given_seconds == [pytest.approx(agent.time_budget - 0.05)]


def test_the_value_of_a_decided_position_is_a_win():
    search = PurpleSearch()
    view = view_of("14R24R34R44R00B25B35B45B41r31r21r11r40b30b20b13b")
    (_, target), value = search.best_move(position_of(view), 0.5)
    assert target == -1 and value == WIN


# --- pressing a game that would be drawn ----------------------------------------------------
def test_the_hunt_counts_steps_from_the_two_nearest_reds_to_each_sure_blue():
    search = PurpleSearch(hunt=2.0)
    # their sure blue on 0, a doubtful ghost on 5 (not hunted); our reds on 2, 12 and 35
    position = Position(red=bit(2, 12, 35), blue=bit(20), purple=bit(0, 5), marked=0, takes=4, hidden_reds=4,
                        our_reds=3, our_blues=1, blue_odds={0: 0.9, 5: 0.5})
    hunted = search.evaluate(position)
    search.hunt = 0.0
    # 2 steps from 2, 2 from 12 (35 is farther): 0.9 * 4 steps at 2 a step
    assert search.evaluate(position) - hunted == pytest.approx(2.0 * 0.9 * 4)
    assert PurpleSearch.hunters_distance([3, 1, 7], [0, 1, 2]) == 4  # the two nearest: 1 and 3
    assert PurpleSearch.hunters_distance([3, 1, 7], [2]) == 7  # our one red


def test_hunting_steps_a_red_toward_a_sure_blue_when_nothing_else_matters():
    # no price for our blues' progress: only the hunt tells the moves apart. Their sure
    # blue on 1 (x 1, y 0), a doubtful ghost on 4; our blue on 8, our reds on 14 and 33
    position = Position(red=bit(14, 33), blue=bit(8), purple=bit(1, 4), marked=0, takes=4, hidden_reds=4,
                        our_reds=2, our_blues=1, blue_odds={1: 0.95, 4: 0.5})
    closer = {(14, 13), (33, 27), (33, 32)}  # each a step nearer the blue on 1
    idle, _ = PurpleSearch(weights=(0.0, 500.0)).best_move(position, None, max_depth=1)
    hunting, _ = PurpleSearch(weights=(0.0, 500.0), hunt=5.0).best_move(position, None, max_depth=1)
    assert idle not in closer and hunting in closer


def test_a_position_we_returned_to_before_costs_the_repeat_price_at_the_root():
    search = PurpleSearch(repeat=50.0)
    view = view_of(OPEN)
    position = position_of(view)
    (s, t), _ = search.best_move(position, None, max_depth=2)
    first = search.play_ours(position, s, t)
    # after the same move four times, another is better by more than the first's margin
    (s2, t2), _ = search.best_move(position, None, max_depth=2, visited={board_key(first): 4})
    assert (s2, t2) != (s, t)
    (s3, t3), _ = search.best_move(position, None, max_depth=2, visited={board_key(first): 4})
    assert (s3, t3) == (s2, t2)  # the search itself stays deterministic
    search.repeat = 0.0
    assert search.best_move(position, None, max_depth=2, visited={board_key(first): 4})[0] == (s, t)


def test_the_agent_remembers_where_its_moves_led_within_one_game_only():
    agent = make("purple:time=none,depth=2,repeat=40", seed=0)
    view = view_of(OPEN)
    agent.act(None, view)
    assert sum(agent.visited.values()) == 1
    agent.act(None, view)  # the same position again: the same key is counted twice, or another move made
    assert sum(agent.visited.values()) == 2
    agent.reset(1)
    assert agent.visited == {}
    later = view_of(OPEN)
    later.plies = 40
    agent.act(None, later)
    agent.act(None, view)  # fewer plies than the last move seen: a new game, without reset()
    assert sum(agent.visited.values()) == 1


# --- the fast search against its plain reference ------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 60), path=st.lists(st.integers(0, 999), max_size=8))
def test_the_sums_kept_move_by_move_are_the_sums_of_the_pieces(seed, plies, path):
    search = PurpleSearch(hunt=3.0, race=1.0, red_pull=0.3, bait=50.0, caution=2.0)
    search.boldness = 0.5
    position = random_position(seed, plies)
    for step, pick in enumerate(path):
        moves = search.our_moves(position) if step % 2 == 0 else search.their_moves(position)
        if not moves:
            break
        s, t = moves[pick % len(moves)]
        child = search.play_ours(position, s, t) if step % 2 == 0 else search.play_theirs(position, s, t)
        if child is None:
            break
        position = child
        assert (position.blue_steps, position.red_steps) == position.sums()[:2]
        assert position.danger == pytest.approx(position.sums()[2], abs=1e-9)
        for ours_to_move in (True, False):
            assert search.evaluate(position, ours_to_move) == pytest.approx(
                search.evaluate_reference(position, ours_to_move), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 100_000), plies=st.integers(0, 80))
def test_the_race_ring_by_ring_is_the_race_ghost_by_ghost(seed, plies):
    position = random_position(seed, plies)
    for ours_to_move in (True, False):
        assert PurpleSearch().race(position, ours_to_move) == PurpleSearch().race_plain(position, ours_to_move)
    for rings, steps in ((OUR_DISTANCE_RINGS, OUR_DISTANCE),
                         *zip(OUR_EXIT_RINGS + THEIR_EXIT_RINGS, [STEPS[e] for e in OUR_EXITS + THEIR_EXITS])):
        for mask in (position.red, position.blue, position.red | position.blue, position.purple, 0):
            assert nearest_ring(rings, mask) == nearest_plain(steps, mask)

@pytest.mark.parametrize("seed", range(6))
def test_move_ordering_changes_no_value_only_the_nodes_searched(seed):
    position = random_position(seed, 10 + 7 * seed)
    ordered = PurpleSearch(hunt=3.0, race=1.0, bait=50.0)
    plain = PurpleSearch(hunt=3.0, race=1.0, bait=50.0, ordering=False)
    for boldness in (0.0, 0.6):
        for depth in (2, 3, 4):
            (move_a, value_a), (move_b, value_b) = (
                search.best_move(position, None, depth, boldness) for search in (ordered, plain))
            assert value_a == pytest.approx(value_b, abs=1e-6)
            if move_a != move_b:  # a tie: the other order's move is worth as much
                child = ordered.play_ours(position, *move_a)
                assert child is not None


# --- the race beyond the horizon -----------------------------------------------------------
def test_a_free_runner_is_worth_its_race_and_the_side_to_move_wins_a_tied_race():
    # our blue on 7 (x 1, y 1) is two steps from our exit 0 and nearer to it than any of
    # theirs: three moves to leave. Their ghost on 21 is nearer neither of its exits than
    # our red on 34 is.
    quiet = Position(red=bit(34), blue=bit(7), purple=bit(21), marked=0, takes=4, hidden_reds=4,
                     our_reds=1, our_blues=1, blue_odds={21: 0.5})
    assert PurpleSearch().race(quiet, True) == RACE_WIN[3]
    assert PurpleSearch().race(quiet, False) == RACE_WIN[3]
    # their ghost on 18 (x 0, y 3) is two steps from its exit 30, which none of ours can
    # reach as soon: three moves to leave, as many as our runner needs
    tied = Position(red=bit(34), blue=bit(7), purple=bit(18, 21), marked=0, takes=4, hidden_reds=4,
                    our_reds=1, our_blues=1, blue_odds={18: 0.5, 21: 0.5})
    cost = 0.5 * UNCOVERED[3]
    assert PurpleSearch().race(tied, True) == pytest.approx(RACE_WIN[3] - cost)  # we move first: we leave first
    assert PurpleSearch().race(tied, False) == pytest.approx(0.5 * RACE_WIN[3] - cost)  # it leaves first if blue
    # known red, it is no runner at all
    marked = Position(red=bit(34), blue=bit(7), purple=bit(18, 21), marked=bit(18), takes=4, hidden_reds=3,
                      our_reds=1, our_blues=1, blue_odds={18: 0.5, 21: 0.5})
    assert PurpleSearch().race(marked, False) == RACE_WIN[3]


def test_a_blue_with_a_ghost_of_theirs_nearer_its_exit_is_no_free_runner():
    # their ghost on 1 guards our exit 0 better than our blue on 12 can reach it
    guarded = Position(red=bit(34), blue=bit(12), purple=bit(1), marked=0, takes=4, hidden_reds=4,
                       our_reds=1, our_blues=1, blue_odds={1: 0.5})
    assert PurpleSearch().race(guarded, True) <= 0.0


def test_the_race_sends_a_runner_out_that_a_shallow_search_cannot_see_escape():
    # our blue on 13 (x 1, y 2) can run for exit 0 (three steps, four moves); at depth 1,
    # with no price on our progress, only the race tells its steps from our red's (on 8,
    # whose step north comes first in the search's order)
    position = Position(red=bit(8), blue=bit(13), purple=bit(21, 22), marked=0, takes=4, hidden_reds=4,
                        our_reds=1, our_blues=1, blue_odds={21: 0.5, 22: 0.5})
    plain, _ = PurpleSearch(weights=(0.0, 500.0)).best_move(position, None, max_depth=1)
    racing, _ = PurpleSearch(weights=(0.0, 500.0), race=1.0).best_move(position, None, max_depth=1)
    assert racing in {(13, 7), (13, 12)} and plain not in {(13, 7), (13, 12)}


def test_bait_prices_our_reds_next_to_theirs_by_the_opponents_boldness():
    # our reds on 14 and 20, theirs on 8 (next to 14) and 35 (next to neither)
    position = Position(red=bit(14, 20), blue=bit(2), purple=bit(8, 35), marked=0, takes=4, hidden_reds=4,
                        our_reds=2, our_blues=1, blue_odds={8: 0.5, 35: 0.5})
    assert PurpleSearch().offered_reds(position) == 1
    plain, baiting = PurpleSearch(), PurpleSearch(bait=100.0)
    baiting.boldness = 0.6
    assert baiting.evaluate(position) - plain.evaluate(position) == pytest.approx(100.0 * 0.6 * 1)
    baiting.boldness = 0.0  # a cautious opponent takes no bait
    assert baiting.evaluate(position) == pytest.approx(plain.evaluate(position))


def test_caution_prices_each_capture_that_may_be_red_the_more():
    """Two of the opponent's reds left by the pessimistic count: caution 2 doubles their
    price; a capture of a doubtful ghost then costs more than its chance of blue gains."""
    from boardzoo.strategy.geister.purple_position import TAKES_PENALTY

    position = Position(red=bit(20), blue=bit(14), purple=bit(8, 2), marked=0, takes=2, hidden_reds=2,
                        our_reds=4, our_blues=4, blue_odds={8: 0.6, 2: 0.6})
    plain, cautious = PurpleSearch(), PurpleSearch(caution=2.0)
    assert plain.evaluate(position) - cautious.evaluate(position) == pytest.approx(TAKES_PENALTY[2])
    assert plain.evaluate_reference(position) - cautious.evaluate_reference(position) == pytest.approx(
        TAKES_PENALTY[2])
    # all four reds left: taking an 80 % blue from 14 gains 0.8 of a blue (400) against a
    # first risky capture's price (300): worth it at caution 1, not at caution 2
    fresh = Position(red=bit(20), blue=bit(14), purple=bit(8, 2), marked=0, takes=4, hidden_reds=4,
                     our_reds=4, our_blues=4, blue_odds={8: 0.8, 2: 0.6})
    taken = plain.play_ours(fresh, 14, 8)
    for search, worth in ((plain, True), (cautious, False)):
        assert (search.evaluate(taken, False) > search.evaluate(fresh)) is worth


def test_red_pull_prices_each_step_of_our_reds_from_our_exits():
    # our red on 26 (x 2, y 4): six steps from exit 0, so OUR_DISTANCE 7
    position = Position(red=bit(26), blue=bit(2), purple=bit(35), marked=0, takes=4, hidden_reds=4,
                        our_reds=1, our_blues=1, blue_odds={35: 0.5})
    idle, pulled = PurpleSearch(red_pull=0.0), PurpleSearch(red_pull=0.5)
    assert idle.evaluate(position) - pulled.evaluate(position) == pytest.approx(10.0 * 0.5 * 7)


# --- the Geister family ------------------------------------------------------------------------------
def test_the_purple_tables_of_a_smaller_member():
    from boardzoo.games.geister.board import layout
    from boardzoo.strategy.geister.purple_position import CLASSIC_BOARD, purple_board

    board = purple_board(layout(5, 4, 2, 2, exits=1))
    assert board.our_exits == (0,) and board.their_exits == (19,) and board.exit_mask == 1 << 19
    assert board.our_distance[0] == 1 and board.our_distance[3] == 4 and board.their_distance[19] == 1
    assert board.neighbours[0] == (1, 4) and len(board.takes_penalty) == 3 and len(board.blues_penalty) == 3
    assert board.blues_penalty[1] == CLASSIC_BOARD.blues_penalty[1]  # one blue left: as near to losing
    with pytest.raises(ValueError, match="62 bits"):
        purple_board(layout(8, 8, 4, 4))


@pytest.mark.parametrize("spec", ["purple:time=0.02", "geister-expert:time=0.02"])
def test_the_purple_search_and_the_expert_play_every_member(spec):
    from boardzoo import arena

    for env in ("geister_v0:rows=5,cols=4,blue=2,red=2,exits=1,max_turns=30",
                "geister_v0:rows=3,cols=4,blue=1,red=1,max_turns=10,placement=dealt"):
        records = arena.run(env, spec, "random", games=4, seed=2)
        assert len(records) == 4 and all(r["plies"] >= 1 for r in records)
    with pytest.raises(Exception, match="engine=compiled plays the classic game only"):
        arena.run("geister_v0:rows=5,cols=4,blue=2,red=2", "purple:time=0.02,engine=compiled", "random", games=1)
