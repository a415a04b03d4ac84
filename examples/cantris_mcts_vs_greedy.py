"""Cantris (source 001's tile game): MCTS with source 001's settings against the greedy
player, on the 8x4 board, showing the board and the scores as the game goes.

    python examples/cantris_mcts_vs_greedy.py
"""

from boardzoo.agents import make
from boardzoo.envs import cantris_v0

env = cantris_v0.env(board="8x4", render_mode="ansi")
env.reset(seed=11)
players = {
    # Source 001: q = wins - losses, c = 1.0 while searching (its formula has sqrt(2 ln N / n),
    # so that is our c = 1.414), 0 for the final choice.
    "player_0": make("mcts:iterations=500,q=win-lose,c=1.414,final=value,c_final=0", seed=1),
    "player_1": make("greedy", seed=2),
}
print(env.render(), "\n")
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        print(f"{agent} ({players[agent].spec}): reward {reward}, scores {info['scores']}")
        env.step(None)
        continue
    action = players[agent].act(observation, env.unwrapped.model(agent))
    env.step(action)
    points = env.infos[agent]["last_points"]
    print(f"{agent} takes column {action + 1} for {points} point{'' if points == 1 else 's'}")

print(env.render())
