"""RL smoke test (needs the rl extra: `pip install torch==2.13.0 && pip install ".[rl]"`;
skipped without it): a short MaskablePPO training runs, saves, reloads as a boardzoo
agent and plays legal moves only, in the arena and in the training example."""

import pathlib
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the rl extra is not installed (pip install torch==2.13.0 && "
                                          "pip install '.[rl]')")

from boardzoo import arena  # noqa: E402
from boardzoo.agents import make  # noqa: E402
from boardzoo.envs import cantris_v0, geister_v0  # noqa: E402


def test_training_saves_reloads_and_plays_legal_moves(tmp_path, capsys, load_example):
    example = load_example("train_maskable_ppo")
    path = tmp_path / "ppo.zip"
    rate = example.main(["--steps", "4096", "--save", str(path), "--eval-games", "10"])
    out = capsys.readouterr().out.strip().splitlines()
    assert path.exists() and out[-1] == f"win rate vs random: {rate:.2f}"
    agent = make(f"sb3:path={path}")
    records = arena.run("connect_four_v0", f"sb3:path={path}", "random", games=6, seed=3, progress=False)
    assert all(r["forfeit"] is None for r in records)  # an illegal move would have forfeited
    # the reloaded policy honours the mask even where most columns are full
    observation = {"observation": np.zeros((6, 7, 2), dtype=np.int8), "action_mask": np.eye(7, dtype=np.int8)[5]}
    assert agent.act(observation, None) == 5


def test_training_works_on_other_games(tmp_path, load_example):
    example = load_example("train_maskable_ppo")
    example.main(["--env", "cantris", "--steps", "1024", "--save", str(tmp_path / "c.zip"), "--eval-games", "4"])
    env = cantris_v0.env()
    env.reset(seed=0)
    agent = make(f"sb3:path={tmp_path / 'c.zip'}")
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        action = None if termination or truncation else agent.act(observation, env.unwrapped.model(name))
        if action is not None:
            assert observation["action_mask"][action] == 1
        env.step(action)


def test_a_deterministic_policy_still_draws_its_secret_placement(tmp_path, load_example):
    """``deterministic=true`` plays the likeliest move, except the Geister placement, a
    secret: drawn from the policy with the agent's seeded generator (the same seed, the
    same placement), so the placement is not one red set every game."""
    example = load_example("train_maskable_ppo")
    path = tmp_path / "geister.zip"
    example.main(["--env", "geister_v0", "--steps", "512", "--save", str(path), "--eval-games", "1"])
    env = geister_v0.env()
    placements = []
    for seed in range(12):
        env.reset(seed=seed)
        name = env.agent_selection
        agent = make(f"sb3:path={path}", seed=seed)
        placements.append(agent.act(env.observe(name), env.unwrapped.model(name)))
    assert len(set(placements)) >= 4  # an untrained policy is near uniform over the 70 sets
    env.reset(seed=0)
    again = make(f"sb3:path={path}", seed=0).act(env.observe(env.agent_selection),
                                                 env.unwrapped.model(env.agent_selection))
    assert again == placements[0]


def test_self_play_example_runs(tmp_path, capsys, load_example):
    example = load_example("train_self_play")
    results = example.main(["--generations", "2", "--steps", "1024", "--eval-games", "4", "--out", str(tmp_path)])
    assert set(results) == {"random", "greedy", "generation 1"}
    assert "self-play result: win rate vs random" in capsys.readouterr().out


def test_bad_model_paths_are_clear(tmp_path):
    from boardzoo.errors import SpecError

    with pytest.raises(SpecError, match="no saved model"):
        make(f"sb3:path={tmp_path / 'missing.zip'}")
    (tmp_path / "junk.zip").write_bytes(b"not a model")
    with pytest.raises(SpecError, match="not a saved MaskablePPO or PPO model"):
        make(f"sb3:path={tmp_path / 'junk.zip'}")


def test_a_saved_model_guides_puct_as_prior_and_value(tmp_path, load_example):
    example = load_example("train_maskable_ppo")
    path = tmp_path / "ppo.zip"
    example.main(["--steps", "2048", "--save", str(path), "--eval-games", "2"])
    agent = make(f"mcts:policy=puct,model={path},iterations=30", seed=0)
    records = arena.run("connect_four_v0", f"mcts:policy=puct,model={path},iterations=30", "random", games=4,
                        seed=1, progress=False)
    assert all(r["forfeit"] is None for r in records)
    from boardzoo.games import ConnectFourState

    state = ConnectFourState()
    agent.act(None, state)
    # the priors are the policy's own probabilities over the legal moves
    probabilities = agent.evaluator.prior(state)
    assert abs(sum(p for _, p in probabilities) - 1) < 1e-5
    assert {c["action"]: c["prior"] for c in agent.stats["children"]} == pytest.approx(dict(probabilities))
    v0, v1 = agent.evaluator.evaluate(state)
    assert -1 <= v0 <= 1 and v1 == -v0
    # a model trained on another game (size) is refused clearly
    with pytest.raises(ValueError, match="takes observations of shape"):
        agent.act(None, ConnectFourState(5, 6))
    # ... and from the command line before the first game: a clear error, not a traceback
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "faults"))
    from helpers import assert_clean_error, run_cli

    assert_clean_error(run_cli("arena", "nim_v0", f"mcts:policy=puct,model={path},iterations=5", "random",
                               "--games", "2"), "takes observations of shape (6, 7, 2); nim gives (2,)")


def test_training_shows_progress_and_leaves_no_log_folders(tmp_path, monkeypatch, capsys, load_example):
    import io
    import tempfile

    from sb3_contrib import MaskablePPO

    from boardzoo.training import quiet_logger, training_progress
    from boardzoo.training.single_agent import SingleAgentEnv

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where SB3 would make its SB3-<date> folders
    model = MaskablePPO("MlpPolicy", SingleAgentEnv("nim_v0", opponent="random"), n_steps=256, batch_size=64,
                        n_epochs=1, seed=0)
    quiet_logger(model)
    stream = io.StringIO()
    model.learn(total_timesteps=512, callback=training_progress(512, "nim", stream=stream, interactive=True,
                                                                  plain=True))
    last = stream.getvalue().rstrip("\n").split("\r")[-1]
    assert last.startswith("nim: 512/512 steps [") and "mean reward " in last and "episodes)" in last
    # training further counts only this call's steps
    stream = io.StringIO()
    model.learn(total_timesteps=256, reset_num_timesteps=False,
                callback=training_progress(256, "more", stream=stream, interactive=True, plain=True))
    assert stream.getvalue().rstrip("\n").split("\r")[-1].startswith("more: 256/256 steps [")
    example = load_example("train_maskable_ppo")
    example.main(["--env", "nim", "--steps", "512", "--save", str(tmp_path / "n.zip"), "--eval-games", "2"])
    assert not list(tmp_path.glob("SB3-*"))
    capsys.readouterr()


def test_the_mean_reward_status():
    from boardzoo.training import mean_reward_status

    assert mean_reward_status([]) == ""
    assert mean_reward_status([1.0, -1.0, 1.0, 1.0]) == "mean reward +0.50 (last 4 episodes)"


def test_training_on_the_batched_games_improves_against_random(tmp_path, load_example):
    """MaskablePPO through SB3's face of the batched games: a short run on 32 Connect Four
    games beats random clearly more often than a random player does (about half)."""
    example = load_example("train_maskable_ppo")
    rate = example.main(["--steps", "12288", "--vector", "32", "--save", str(tmp_path / "v.zip"),
                         "--eval-games", "40"])
    assert rate >= 0.7


def test_the_sb3_face_of_the_batched_games_follows_sb3s_conventions():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from boardzoo.training.sb3_vec_env import vec_env

    envs = vec_env("nim_v0:n=3..6", num_envs=8, opponent="random")
    envs.seed(4)
    observations = envs.reset()
    assert observations.shape == (8, 2) and is_masking_supported(envs)
    rng, ended = np.random.default_rng(4), 0
    for _ in range(20):
        masks = get_action_masks(envs)
        assert masks.shape == (8, 3) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = envs.step(actions)
        for i in np.flatnonzero(dones):
            ended += 1
            assert "episode" in infos[i] and infos[i]["episode"]["r"] == rewards[i] != 0
            assert infos[i]["terminal_observation"].shape == (2,) and not infos[i]["TimeLimit.truncated"]
    assert ended > 8
