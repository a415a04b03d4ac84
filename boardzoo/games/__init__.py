"""Game cores (layer 1): pure rules, each state object is its own search model; each
game declares itself once (:mod:`.registry`)."""

from boardzoo.games.cantris import CantrisState
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.model import CHANCE, TERMINAL, Capabilities, GameState
from boardzoo.games.nim import NimState

__all__ = ["CHANCE", "TERMINAL", "Capabilities", "CantrisState", "ConnectFourState", "GameState", "NimState"]
