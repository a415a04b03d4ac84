"""Self-play learning of a game with hidden information (``boardzoo train geister``): a
policy-value network over each seat's information state, trained by a regularised
self-play policy gradient against a league of itself, its past selves and fixed
opponents (roll-out policies, or any agent on its seat's view), with a belief head that
learns the hidden colours as a target only.

    config.py    the run's settings and the presets
    league.py    the opponents a game is drawn against
    selfplay.py  the games on the compiled batch, and the evaluation games
    trainer.py   the loop, the loss, the run directory
"""
