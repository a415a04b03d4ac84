"""The plain PettingZoo AEC loop with boardzoo agents choosing the moves.

    python examples/pettingzoo_loop.py

Any PettingZoo code drives a boardzoo env unchanged; an agent only needs the observation
(with its action mask) and, if it searches, the seat's model from ``env.unwrapped``.
"""

from boardzoo.agents import make
from boardzoo.envs import connect_four_v0

env = connect_four_v0.env(render_mode="ansi")
env.reset(seed=42)
players = {"player_0": make("greedy", seed=1), "player_1": make("random", seed=2)}

for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        print(f"{agent}: final reward {reward}")
        action = None
    else:
        model = env.unwrapped.model(agent)  # a private copy of the position to search on
        action = players[agent].act(observation, model)
    env.step(action)

print(env.render())
env.close()
