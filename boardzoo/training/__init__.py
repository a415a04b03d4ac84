"""Training learned agents on boardzoo envs: a Gymnasium single-agent view of any env
against a fixed opponent (:mod:`.single_agent`) and helpers for Stable-Baselines3 runs
(:mod:`.sb3`, the ``rl`` extra, imported only when called)."""

from boardzoo.training.sb3 import mean_reward_status, quiet_logger, training_progress

__all__ = ["mean_reward_status", "quiet_logger", "training_progress"]
