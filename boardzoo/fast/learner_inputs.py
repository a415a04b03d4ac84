"""What a learner's network reads in a batch of games, on a game's compiled core
(:mod:`.core`): the inputs of the players to move, and for a game with hidden
information, the secret each of them cannot see (a training target, never an input)."""

from __future__ import annotations

from boardzoo.fast.core import kernel, write_input, write_secret


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
