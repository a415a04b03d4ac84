"""TorchRL (the torchrl extra; skipped without it): the batched games as one TorchRL env
pass TorchRL's own spec check, sample only legal actions through the masked actor, and
the PPO example measurably improves against random."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="the torchrl extra is not installed (pip install '.[torchrl]')")

import torch  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from boardzoo.training.torchrl import BoardzooTorchEnv, masked_actor_critic  # noqa: E402


@pytest.mark.parametrize("spec", ["connect_four_v0", "nim_v0:n=5..9,coin=true", "cantris_v1:board=6x3",
                                  "geister_v0:max_turns=30"])
def test_the_env_passes_torchrls_spec_check_and_the_actor_plays_legal_moves(spec):
    env = BoardzooTorchEnv(spec, num_envs=8, opponent="random")
    env.set_seed(0)
    check_env_specs(env)
    actor, _ = masked_actor_critic(env)
    with torch.no_grad():
        rollout = env.rollout(60, actor, break_when_any_done=False)
    taken = rollout["action"]
    assert rollout["action_mask"].gather(-1, taken.unsqueeze(-1)).all()  # every action was legal
    assert rollout["next", "done"].any()  # games ended and went on


@pytest.mark.slow
def test_the_ppo_example_improves_against_random(load_example):
    example = load_example("train_torchrl_ppo")
    before, after = example.main(["--iterations", "12", "--eval-games", "400"])
    assert after >= max(before + 0.1, 0.75)
