"""Named, runnable experiments: each study of the source documents re-run, with a report
that sets our figures beside the published ones.

    boardzoo experiment list
    boardzoo experiment run nim-mcts --games 20 --out runs/nim --workers 2
"""

from __future__ import annotations

from boardzoo.experiments.cantris import CantrisMCTS, CantrisRulesFit
from boardzoo.experiments.connect_four_minimax import ConnectFourMinimax
from boardzoo.experiments.connect_four_uct import ConnectFourUCT, ConnectFourUCTFinalValue, ConnectFourUCTSigned
from boardzoo.experiments.framework import Experiment, ExperimentError, Job, Report, run
from boardzoo.experiments.geister import GeisterMCTS
from boardzoo.experiments.nim import NimMCTS

#: name -> experiment, in the order of the source documents
EXPERIMENTS: dict[str, Experiment] = {
    e.name: e for e in (NimMCTS(), CantrisMCTS(), CantrisRulesFit(), ConnectFourMinimax(), ConnectFourUCT(),
                        ConnectFourUCTSigned(), ConnectFourUCTFinalValue(), GeisterMCTS())}


def get(name: str) -> Experiment:
    if name not in EXPERIMENTS:
        raise ExperimentError(f"unknown experiment {name!r}; experiments are: {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[name]


__all__ = ["EXPERIMENTS", "Experiment", "ExperimentError", "Job", "Report", "get", "run"]
