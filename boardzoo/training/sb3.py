"""Helpers for training Stable-Baselines3 models on boardzoo envs (the ``rl`` extra).

    model = MaskablePPO("MlpPolicy", SingleAgentEnv("connect_four_v0", opponent="random"))
    quiet_logger(model)
    model.learn(total_timesteps=100_000, callback=training_progress(100_000))

``training_progress`` shows the run the way every long boardzoo job shows itself
(``boardzoo.progress``: a bar on a terminal, a line a minute in a log), with the mean
reward of the last 100 episodes -- in a game scored +1/0/-1 that is the recent win rate
minus the loss rate. ``quiet_logger`` stops Stable-Baselines3 from leaving an empty
``SB3-<date>`` folder in the temporary directory at every ``learn`` (it makes one for
its logs even when it writes none). Stable-Baselines3 is imported only when they are called.
"""

from __future__ import annotations

from collections.abc import Iterable

from boardzoo.progress import ProgressBar


def mean_reward_status(episode_rewards: Iterable[float]) -> str:
    """The status after the step count: the mean reward of the episodes SB3 keeps (its
    last 100), or nothing before the first episode ends."""
    rewards = list(episode_rewards)
    if not rewards:
        return ""
    return f"mean reward {sum(rewards) / len(rewards):+.2f} (last {len(rewards)} episodes)"


def training_progress(steps: int, desc: str = "training", **bar_options):
    """A callback for ``model.learn(total_timesteps=steps, callback=...)`` that draws a
    ``ProgressBar`` of the steps this ``learn`` call takes (``bar_options`` go to it)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingProgress(BaseCallback):
        def _on_training_start(self) -> None:
            self.first_step = self.num_timesteps  # a model trained further starts above zero
            self.bar = ProgressBar(steps, desc, "steps", **bar_options)

        def _on_step(self) -> bool:
            status = mean_reward_status(info["r"] for info in self.model.ep_info_buffer or ())
            self.bar.set(min(self.num_timesteps - self.first_step, steps), status)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    return TrainingProgress()


def quiet_logger(model) -> None:
    """Give ``model`` a logger that writes nothing and makes no folder (its default,
    made again at every ``learn``, creates ``$TMPDIR/SB3-<date>``); call it after
    creating or loading the model."""
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
