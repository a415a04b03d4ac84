"""Connect Four: MCTS against alpha-beta, with MCTS's search tree shown after its first move.

    python examples/connect_four_mcts_vs_alphabeta.py
"""

from boardzoo.agents import make
from boardzoo.envs import connect_four_v0

env = connect_four_v0.env(render_mode="ansi")
env.reset(seed=7)
players = {
    "player_0": make("mcts:iterations=1500,c=1.4", seed=1),
    "player_1": make("alphabeta:depth=5,eval=three2", seed=2),
}

for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        print(f"{agent} ({players[agent].spec}): reward {reward}")
        env.step(None)
        continue
    player = players[agent]
    action = player.act(observation, env.unwrapped.model(agent))
    if agent == "player_0" and env.unwrapped.game.plies == 0:
        # The tree of the opening move: the most visited replies two levels down.
        print(player.tree_text(depth=2, best=3), "\n")
    env.step(action)

print(env.render())
