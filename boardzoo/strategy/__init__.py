"""What players know of each game, above the rules and the compiled engine: the
registry of game knowledge (:mod:`.knowledge`), one module or package per game with its
greedy rule, roll-outs, evaluators, beliefs and searches (the Connect Four solver, the
Geister purple search), and the one rule choosing between the Python and compiled
engines (:mod:`.engine`)."""
