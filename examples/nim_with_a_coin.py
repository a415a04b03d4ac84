"""Nim with a coin: MCTS (chance nodes for the coin) against the greedy `n % (K+1)` player,
over a short match with seats alternating, then one game with MCTS's statistics.

    python examples/nim_with_a_coin.py
"""

from boardzoo import arena
from boardzoo.agents import make
from boardzoo.envs import nim_v0

# A match through the arena: seats alternate, game i depends only on (seed, i).
records = arena.run("nim_v0:coin=true", "mcts:iterations=400", "greedy", games=20, seed=0)
print(arena.format_summary(arena.summarize(records)), "\n")

# One game by hand, printing what MCTS thought of each of its moves.
env = nim_v0.env(n=21, k=3, coin=True, render_mode="ansi")
env.reset(seed=3)
mcts, greedy = make("mcts:iterations=400", seed=4), make("greedy")
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        env.step(None)
        continue
    if agent == "player_0":
        action = mcts.act(observation, env.unwrapped.model(agent))
        stats = mcts.stats
        print(f"{observation['observation'][0]:>2} pawns: MCTS takes {action + 1} "
              f"(win ratio {stats['convincity']:.2f}, {stats['iterations']} iterations)")
    else:
        action = greedy.act(observation, env.unwrapped.model(agent))
    env.step(action)
print(env.render())
