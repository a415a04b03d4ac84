"""Batched games (boardzoo.vector): the reference batch against the AEC envs it is built
on, game by game and action by action; the compiled batch against the reference, field
by field and draw by draw; hidden information kept per seat; the functional face; bad
input refused with a clear error."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import make as make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.games.geister import GHOSTS, GeisterView, observation_of
from boardzoo.games.registry import games
from boardzoo.vector import MAX_BATCH, make
from boardzoo.vector.reference import ReferenceVectorGame

#: Every game's small envs, from the registry.
SMALL_ENVS = [spec for game in games().values() for spec in game.small_envs.values()]
#: Every compiled env, with the parameters that change how it deals, draws and ends.
COMPILED_SPECS = ["nim_v0:n=5..9,coin=true", "nim_v0:n=7,coin=true", "nim_v0:n=3..30,k=5",
                  "connect_four_v0", "connect_four_v0:rows=4,cols=5",
                  "cantris_v0:board=6x3", "cantris_v0:board=10x5", "cantris_v1:deal=halves,tile_scores=false",
                  "cantris_v1:rows=4,cols=24",  # wide: whole deals are rarely stable, the deal goes column by column
                  "geister_v0:max_turns=30", "geister_v0:rows=5,cols=4,blue=2,red=2,exits=1,max_turns=30",
                  "geister_v0:rows=3,cols=4,blue=1,red=1,max_turns=12,placement=dealt"]
FIELDS = ("current_player", "observation", "legal_action_mask", "rewards", "terminated", "truncated")
needs_fast = pytest.mark.skipif(not __import__("boardzoo.fast").fast.available(),
                                reason="the compiled batch needs the fast extra")


def random_actions(batch, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in batch.legal_action_mask])


@pytest.mark.parametrize("spec", SMALL_ENVS)
def test_the_batch_plays_the_games_the_aec_envs_play(spec):
    """The same seed and actions: the same observations of both seats, masks, player to
    move, rewards and endings as AEC envs stepped by hand, drawing from one generator
    game by game; auto-reset starts the ended games afresh after the step."""
    batch_size, seed = 3, 11
    games_ = make(spec, batch=batch_size, auto_reset=True, engine="python")
    shared = np.random.default_rng(seed)
    envs = [make_env(spec, raw=True) for _ in range(batch_size)]
    for env in envs:
        env.np_random = shared
        env.reset()
    batch = games_.reset(seed=seed)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        for i, env in enumerate(envs):
            for seat, agent in enumerate(AGENTS):
                seen = env.observe(agent)
                assert np.array_equal(batch.observation[i, seat], seen["observation"])
                if seen["action_mask"].any():
                    assert batch.current_player[i] == seat
                    assert np.array_equal(batch.legal_action_mask[i], seen["action_mask"].astype(bool))
        actions = random_actions(batch, rng)
        batch = games_.step(batch, actions)
        over = []
        for i, (env, action) in enumerate(zip(envs, actions.tolist())):
            env.step(action)
            assert batch.rewards[i].tolist() == [env.rewards[agent] for agent in AGENTS]
            over.append(any(env.terminations.values()) or any(env.truncations.values()))
            assert bool(batch.terminated[i] or batch.truncated[i]) == over[-1]
            if over[-1]:
                ended += 1
                assert batch.rewards[i].sum() == 0  # zero-sum
        for env, done in zip(envs, over):
            if done:
                env.reset()
    assert ended > 0


def test_a_seat_observes_only_its_own_information_set():
    """Geister on the reference: each seat's observation is the one its view (which holds
    no hidden colour) gives, in every game of random batches."""
    games_ = make("geister_v0", batch=16, max_turns=40, auto_reset=True, engine="python")
    batch = games_.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        for i, env in enumerate(batch.state.envs):
            for seat in (0, 1):
                view = GeisterView(env.game, seat)
                assert np.array_equal(batch.observation[i, seat], observation_of(view, seat))
        batch = games_.step(batch, random_actions(batch, rng))


@needs_fast
def test_the_compiled_observations_never_read_an_opponents_hidden_colours():
    """Over random compiled batches: recolour one seat's ghosts on the board (the same
    number of reds, other ghosts) in every game, and the other seat's observation does not
    change (while the recoloured seat's own does, where it sees its colours)."""
    from boardzoo.games.geister.compiled import PLACED, POS, RED

    games_ = make("geister_v0", batch=64, max_turns=60, auto_reset=True, engine="compiled")
    batch = games_.reset(seed=4)
    rng = np.random.default_rng(4)
    recoloured = 0
    for _ in range(50):
        states = batch.state.states.copy()
        seats = rng.integers(2, size=len(states))
        for s, seat in zip(states, seats):
            ghosts = np.array([g for g in range(GHOSTS * seat, GHOSTS * seat + GHOSTS) if s[POS + g] >= 0])
            if s[PLACED + seat] and len(ghosts) > 1:
                s[RED + ghosts] = rng.permutation(s[RED + ghosts])
        observation = np.empty_like(batch.observation)
        games_.kernels.observe_all(states, observation.reshape(len(states), 2, -1),
                                   np.empty_like(batch.legal_action_mask), np.empty_like(batch.current_player),
                                   np.zeros(games_.num_actions, dtype=np.int64))
        games = np.arange(len(states))
        assert np.array_equal(observation[games, 1 - seats], batch.observation[games, 1 - seats])
        changed = (states != batch.state.states).any(axis=1)
        assert (observation[games, seats] != batch.observation[games, seats]).any(axis=1).tolist() == changed.tolist()
        recoloured += int(changed.sum())
        batch = games_.step(batch, random_actions(batch, rng))
    assert recoloured > 1000


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_the_same_seed_gives_the_same_games_and_another_seed_others(engine):
    def play(seed):
        games_ = make("nim_v0:n=5..9,coin=true", batch=8, auto_reset=True, engine=engine)
        batch, rng, seen = games_.reset(seed=seed), np.random.default_rng(1), []
        for _ in range(20):
            batch = games_.step(batch, random_actions(batch, rng))
            seen.append(batch.observation.copy())
        return np.stack(seen)

    assert np.array_equal(play(5), play(5)) and not np.array_equal(play(5), play(6))


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_a_batch_stays_as_it_was_and_steps_again_another_way(engine):
    """The functional face: stepping a batch changes nothing in it, stepping it twice the
    same way gives the same batch (coin draws included), and its arrays are read-only."""
    games_ = make("nim_v0:n=8..20,coin=true", batch=6, auto_reset=True, engine=engine)
    start = games_.reset(seed=9)
    before = [getattr(start, field).copy() for field in FIELDS]
    first, second = games_.step(start, np.zeros(6, dtype=np.int64)), games_.step(start, np.zeros(6, dtype=np.int64))
    other = games_.step(start, np.ones(6, dtype=np.int64))
    for field, old in zip(FIELDS, before):
        assert np.array_equal(getattr(start, field), old), field
        assert np.array_equal(getattr(first, field), getattr(second, field)), field
    assert not np.array_equal(first.observation, other.observation)
    with pytest.raises(ValueError, match="read-only"):
        start.legal_action_mask[0, 0] = False


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
@pytest.mark.parametrize("actions, words", [
    (np.zeros(4, dtype=np.int64), "actions must be 3 ints"),
    (np.zeros(3, dtype=np.float64), "actions must be 3 ints"),
    (np.array([0, 0, 99]), "game 2: action 99 is not legal \\(no such action\\); no game of the batch"),
    (np.array([0, -1, 0]), "game 1: action -1 is not legal \\(no such action\\)"),
])
def test_bad_actions_are_refused_naming_the_game(engine, actions, words):
    games_ = make("connect_four_v0", batch=3, engine=engine)
    batch = games_.reset(seed=0)
    with pytest.raises(ValueError, match=words):
        games_.step(batch, actions)


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_an_illegal_move_in_one_game_steps_no_game(engine):
    games_ = make("connect_four_v0:rows=4,cols=4", batch=2, engine=engine)
    batch = games_.reset(seed=0)
    for _ in range(4):
        batch = games_.step(batch, np.array([0, 1]))  # column 0 of game 0 is now full
    with pytest.raises(ValueError, match="game 0: action 0 is not legal"):
        games_.step(batch, np.array([0, 2]))
    assert games_.step(batch, np.array([1, 2])).legal_action_mask.shape == (2, 4)  # the batch is intact


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_a_finished_game_is_not_stepped_without_auto_reset(engine):
    games_ = make("nim_v0:n=1", batch=2, engine=engine)
    batch = games_.step(games_.reset(seed=0), np.zeros(2, dtype=np.int64))  # one pawn: the first move wins
    assert batch.terminated.all() and batch.rewards.tolist() == [[1.0, -1.0], [1.0, -1.0]]
    assert (batch.current_player == -1).all() and not batch.legal_action_mask.any()
    with pytest.raises(ValueError, match="game 0 is over; restart\\(\\) it"):
        games_.step(batch, np.zeros(2, dtype=np.int64))


def test_sizes_seeds_and_batches_are_checked():
    with pytest.raises(ValueError, match=f"batch must be an int from 1 to {MAX_BATCH:,}"):
        make("connect_four_v0", batch=0)
    with pytest.raises(ValueError, match=f"batch must be an int from 1 to {MAX_BATCH:,}"):
        make("connect_four_v0", batch=MAX_BATCH + 1)
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        make("connect_four_v0", batch=1).reset(seed=-1)
    nim, connect_four = make("nim_v0", batch=1), make("connect_four_v0", batch=1)
    with pytest.raises(ValueError, match="step\\(\\) and restart\\(\\) take a Batch that this game.s reset\\(\\)"):
        connect_four.step(nim.reset(seed=0), np.zeros(1, dtype=np.int64))
    with pytest.raises(ValueError, match="take a Batch"):
        connect_four.step("a batch", np.zeros(1, dtype=np.int64))


# --- the compiled batch -----------------------------------------------------------------------------
@needs_fast
@pytest.mark.parametrize("spec", COMPILED_SPECS)
def test_the_compiled_batch_plays_the_reference_batchs_games(spec):
    """Field for field after every step: the player to move, both seats' observations, the
    masks, rewards and endings, with games ending and starting again mid-batch (new piles,
    deals and coin flips drawn from the seed exactly as the reference draws them)."""
    compiled = make(spec, batch=24, auto_reset=True, engine="compiled")
    reference = make(spec, batch=24, auto_reset=True, engine="python")
    ours, theirs = compiled.reset(seed=1), reference.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(100):
        for field in FIELDS:
            assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field
        assert ours.observation.dtype == theirs.observation.dtype
        actions = random_actions(theirs, rng)
        ours, theirs = compiled.step(ours, actions), reference.step(theirs, actions)
        ended += int(theirs.terminated.sum())
    assert ended > 20


@needs_fast
def test_auto_plays_compiled_where_it_can_and_the_reference_where_it_cannot(monkeypatch):
    from boardzoo import vector
    from boardzoo.vector.compiled import CompiledVectorGame

    assert isinstance(make("cantris_v1", batch=2), CompiledVectorGame)
    assert isinstance(make("tic_tac_toe_v0", batch=2), CompiledVectorGame)
    assert isinstance(make("connect_four_v0:rows=12,cols=12", batch=2), ReferenceVectorGame)  # 169 bits
    # a game without a compiled core (every game has one now: one is taken away)
    monkeypatch.setattr(vector, "COMPILED_ENVS", tuple(env for env in vector.COMPILED_ENVS if env != "tic_tac_toe_v0"))
    assert isinstance(make("tic_tac_toe_v0", batch=2), ReferenceVectorGame)
    with pytest.raises(ValueError, match="engine=compiled plays .*, not tic_tac_toe_v0"):
        make("tic_tac_toe_v0", batch=2, engine="compiled")
    monkeypatch.undo()
    with pytest.raises(ValueError, match="fits in 63 bits"):
        make("connect_four_v0:rows=12,cols=12", batch=2, engine="compiled")
    with pytest.raises(ValueError, match="connect_four: rows"):
        make("connect_four_v0:rows=99", batch=2)


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_random_actions_are_legal_uniform_and_the_same_compiled_or_not(engine, monkeypatch):
    from boardzoo import vector
    from boardzoo.vector.reference import random_actions as plain

    mask = np.random.default_rng(2).random((4000, 7)) < 0.4
    mask[0] = False
    mask[1] = [False, True, False, False, False, False, True]
    monkeypatch.setattr(vector, "compiled_available", lambda: engine == "compiled")
    actions = vector.random_actions(mask, np.random.default_rng(5))
    assert np.array_equal(actions, plain(mask, np.random.default_rng(5)))
    some = mask.any(axis=1)
    assert (actions[~some] == -1).all() and mask[some, actions[some]].all()
    picks = actions[2:][mask[2:].sum(axis=1) == 2]  # rows with two legal actions: each about half the time
    firsts = np.array([np.flatnonzero(row)[0] for row in mask[2:][mask[2:].sum(axis=1) == 2]])
    assert 0.4 < np.mean(picks == firsts) < 0.6
    with pytest.raises(ValueError, match="a mask must be \\(games, actions\\)"):
        vector.random_actions(np.zeros(3), np.random.default_rng(0))


def test_falling_back_to_the_reference_batch_warns_once_naming_the_extra(monkeypatch):
    """Without the fast extra an env with a compiled batch runs on the reference, about a
    hundred times slower: the first such batch of a process says so, the Gymnasium face's
    too; an explicit ``engine="python"`` and an env with no compiled batch say nothing."""
    import warnings

    import gymnasium

    from boardzoo import vector

    monkeypatch.setattr(vector, "compiled_available", lambda: False)
    monkeypatch.setattr(vector, "_fallback_warned", False)
    monkeypatch.setattr(vector, "COMPILED_ENVS", tuple(env for env in vector.COMPILED_ENVS if env != "tic_tac_toe_v0"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make("connect_four_v0", batch=2, engine="python")
        make("tic_tac_toe_v0", batch=2)  # no compiled batch to fall back from
    with pytest.warns(vector.BatchFallbackWarning, match=r'100x slower.*pip install "boardzoo\[fast\]".*'
                      r'pip install "\.\[fast\]"') as caught:
        gymnasium.make_vec("boardzoo/connect_four-v0", num_envs=2, vectorization_mode="vector_entry_point")
        make("nim_v0", batch=2)
    assert len(caught) == 1 and "connect_four_v0" in str(caught[0].message)


@needs_fast
@pytest.mark.parametrize("spec", ["nim_v0:n=5..9,coin=true", "connect_four_v0:rows=4,cols=5", "cantris_v0:board=6x3",
                                  "geister_v0:max_turns=20", "geister_v0:rows=3,cols=4,blue=1,red=1,placement=dealt"])
def test_stepping_some_games_and_restarting_the_ended_ones_match_too(spec):
    """Without auto-reset: random games left out of each step (``playing``) and the games
    that ended started afresh by ``restart``, compiled against the reference."""
    compiled = make(spec, batch=16, engine="compiled")
    reference = make(spec, batch=16, engine="python")
    ours, theirs = compiled.reset(seed=2), reference.reset(seed=2)
    rng = np.random.default_rng(2)
    restarts = 0
    for _ in range(80):
        for field in FIELDS:
            assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field
        if (theirs.current_player < 0).any():
            restarts += 1
            ours, theirs = compiled.restart(ours), reference.restart(theirs)
            assert (theirs.current_player >= 0).all() and not theirs.terminated.any()
            continue
        actions, playing = random_actions(theirs, rng), rng.random(16) < 0.6
        ours, theirs = compiled.step(ours, actions, playing), reference.step(theirs, actions, playing)
        assert not theirs.terminated[~playing].any() and not theirs.rewards[~playing].any()
    assert restarts > 5


@pytest.mark.parametrize("engine", ["python", pytest.param("compiled", marks=needs_fast)])
def test_games_left_out_of_a_step_stay_as_they_were(engine):
    games_ = make("connect_four_v0", batch=4, engine=engine)
    start = games_.reset(seed=0)
    playing = np.array([True, False, True, False])
    after = games_.step(start, np.array([3, 99, 3, -5]), playing)  # actions of games left out are not looked at
    assert np.array_equal(after.observation[~playing], start.observation[~playing])
    assert not np.array_equal(after.observation[playing], start.observation[playing])
    assert after.current_player.tolist() == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="playing must be 4 bools"):
        games_.step(start, np.zeros(4, dtype=np.int64), np.ones(4))
