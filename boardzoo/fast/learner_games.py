"""What a learner's games need on a game's compiled core (:mod:`.core`): the network
inputs of the players to move, for a game with hidden information the secret each of them
cannot see (a training target, never an input), and the moves of the game's roll-out
policies as opponents."""

from __future__ import annotations

from boardzoo.fast.core import kernel, policy_action, write_input, write_secret


@kernel
def write_mover_inputs(states, rows, inputs):
    """The network input of the player to move in each game ``rows[k]`` into ``inputs[k]``."""
    for k in range(rows.shape[0]):
        write_input(states[rows[k]], inputs[k])


@kernel
def write_mover_secrets(states, rows, targets, known):
    """What the player to move in each game ``rows[k]`` cannot see, into ``targets[k]``
    (and where that applies into ``known[k]``): the core's ``write_secret``."""
    for k in range(rows.shape[0]):
        write_secret(states[rows[k]], targets[k], known[k])


@kernel
def policy_moves(states, rows, policy, rng, moves, out):
    """The move of roll-out policy ``policy`` (numbered as the game's ``compiled_rollouts``)
    in each game ``rows[k]`` into ``out[k]``, drawn from ``rng`` (``boardzoo.jit``'s)."""
    for k in range(rows.shape[0]):
        out[k] = policy_action(states[rows[k]], policy, rng, moves)
