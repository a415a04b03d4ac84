"""
# Tic-tac-toe (`boardzoo.envs.tic_tac_toe_v0`)

| Import             | `from boardzoo.envs import make; make("tic_tac_toe_v0")` |
|--------------------|---------------------------------------------------------|
| Agents             | `["player_0", "player_1"]` (`player_0` moves first, X)  |
| Action space       | `Discrete(9)`: the cell, row by row from the top left   |
| Observation shape  | `(3, 3, 2)`, int8 in {0, 1}                              |
| Parameters         | `render_mode` (`"ansi"` or `"human"`)                    |

Two players take turns marking an empty cell of a 3x3 grid, X first. Three of one's own
marks in a row, a column or a diagonal wins; a full grid without one is a draw. Perfect
play by both sides draws.

This game is the worked example of [adding a game](../tutorials/add-a-game.md): this
package is all of it. Its env is the generic adapter built from the declaration below,
which is why it renders as text only.

## Observation
`{"observation", "action_mask"}`: `observation[r, c, 0]` is 1 where the *observing*
player has a mark, plane 1 holds the opponent's marks. `state()` gives the same array
from `player_0`'s side.

## Action mask
int8 of length 9: 1 for every empty cell for the agent to move; all zeros for the other
agent and once the game is over.

## Rewards
+1 to the player completing a line, -1 to the other, 0 each for a draw. With `env()`, a
masked-out action ends the game with -1 for the offender (0 for the other); `raw_env()`
raises `IllegalActionError` instead.

## Search model
`env.unwrapped.model(agent)` returns a `TicTacToeState` with `clone`, `apply`,
`legal_actions`, `returns` and `key()`.

## Version history
* v0: first release.
"""

from boardzoo.games.registry import Game, Learning
from boardzoo.games.tic_tac_toe.rules import TicTacToeState, network_input, observation_of

GAME = Game(
    name=TicTacToeState.game_name,
    title="Tic-tac-toe",
    state_class=TicTacToeState,
    make_state=lambda rng: TicTacToeState(),
    parameters={},
    max_length=lambda params: 9,
    envs={"tic_tac_toe_v0": "tic-tac-toe on a 3x3 grid; the generic env from the game's declaration"},
    observation=observation_of,
    small_envs={"tic_tac_toe": "tic_tac_toe_v0"},
    compiled_core="boardzoo.games.tic_tac_toe.compiled",
    network_input=network_input,
    learning=Learning(
        env="tic_tac_toe_v0", shipped="tic_tac_toe.npz", generations=40,
        settings={"channels": 32, "blocks": 2, "value_hidden": 32, "simulations": 64, "max_considered": 9,
                  "games_per_generation": 512, "games_per_task": 256, "replay_positions": 30_000,
                  "sampled_plies": 2, "random_opening_share": 0.75, "random_opening_plies": 6, "mirror": False,
                  "lr_halving_generations": 15, "anchors": ("random", "alphabeta:depth=9"), "eval_games": 40}),
)

__all__ = ["GAME", "TicTacToeState", "network_input", "observation_of"]
