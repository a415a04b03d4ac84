"""The ``alphazero`` agent: a policy-value network trained by self-play
(``boardzoo train``), searched with Gumbel AlphaZero's compiled search."""

from boardzoo.agents.alphazero.agent import AlphaZeroAgent
from boardzoo.agents.alphazero.network import Network

__all__ = ["AlphaZeroAgent", "Network"]
