"""Geister (source 004): determinized MCTS against the rushing player.

Each seat only ever gets its own information set (`env.unwrapped.model(agent)`): MCTS
samples the hidden colours of the opponent's ghosts from a belief at every iteration.
The board is shown as player_0 sees it (opponent ghosts are `?`), then the truth at the end.

    python examples/geister_mcts_vs_rushing.py
"""

from boardzoo.agents import make
from boardzoo.envs import geister_v0

env = geister_v0.env(render_mode="ansi", view="player_0")
env.reset(seed=3)
players = {
    # "behaviour" reads the opponent's moves (ghosts that rush our exits are likely blue).
    # Roll-outs are MCTS's model of how both sides play on: against this opponent, rushing
    # roll-outs (cut short as a draw after 60 moves) beat source 004's forward-biased ones.
    "player_0": make("mcts:iterations=300,rollout=rushing,max_rollout=60,belief=behaviour", seed=1),
    "player_1": make("greedy", seed=2),  # the rushing player
}
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        print(f"{agent} ({players[agent].spec}): reward {reward}")
        env.step(None)
        continue
    model = env.unwrapped.model(agent)
    action = players[agent].act(observation, model)
    env.step(action)
    print(f"{agent}: {model.action_label(action)}")

print(env.render())
print("\nthe truth (player_0's ghosts B/R, player_1's b/r):\n" + env.unwrapped.game.to_text())
