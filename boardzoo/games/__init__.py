"""Game cores (layer 1): pure rules, each state object is its own search model."""

from boardzoo.games.cantris import CantrisState
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.model import CHANCE, TERMINAL, GameState
from boardzoo.games.nim import NimState

__all__ = ["CHANCE", "TERMINAL", "CantrisState", "ConnectFourState", "GameState", "NimState"]
