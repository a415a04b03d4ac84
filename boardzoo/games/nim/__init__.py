"""Single-pile Nim (take 1..K, whoever takes the last pawn wins) and Nim with a coin.

With ``coin=True``, every move that leaves pawns on the board is followed by a chance
event: a fair coin; heads removes one more pawn, and if that was the last pawn the
*mover* wins. Action ``i`` takes ``i + 1`` pawns; the chance outcomes are
:data:`TAILS` (0) and :data:`HEADS` (1).
"""

from __future__ import annotations

import random

import numpy as np

from boardzoo.games.model import CHANCE, TERMINAL, Capabilities, GameState, check_int, returns_of_winner
from boardzoo.games.registry import Game, Learning, Param

TAILS, HEADS = 0, 1
_COIN = [(TAILS, 0.5), (HEADS, 0.5)]


#: Bounds that keep every structure small: the action space and masks have k entries, and
#: piles fit the int64 observations with room to spare.
MAX_PAWNS = 10**9
MAX_TAKE = 10_000


def check_nim_parameters(pawns: int, k: int) -> None:
    check_int("nim", "n", pawns, 1)
    check_int("nim", "k", k, 1)
    if pawns > MAX_PAWNS:
        raise ValueError(f"nim: n must be at most {MAX_PAWNS:,}, got {pawns}")
    if k > MAX_TAKE:
        raise ValueError(f"nim: k must be at most {MAX_TAKE:,} (the action space has k actions), got {k}")


class NimState(GameState):
    """A Nim position: pawns left, the player to move (or who just moved, before the coin)."""

    __slots__ = ("pawns", "k", "coin", "player", "coin_pending", "winner")
    game_name = "nim"
    capabilities = Capabilities(fast_playout=True, key=True, chance=True)

    def __init__(self, pawns: int, k: int = 3, coin: bool = False):
        check_nim_parameters(pawns, k)
        self.pawns, self.k, self.coin = pawns, k, bool(coin)
        self.player = 0
        self.coin_pending = False
        self.winner = -1

    @property
    def num_actions(self) -> int:
        return self.k

    def clone(self) -> NimState:
        other = NimState.__new__(NimState)
        other.pawns, other.k, other.coin = self.pawns, self.k, self.coin
        other.player, other.coin_pending, other.winner = self.player, self.coin_pending, self.winner
        return other

    def current_player(self) -> int:
        if self.winner >= 0:
            return TERMINAL
        return CHANCE if self.coin_pending else self.player

    def is_terminal(self) -> bool:
        return self.winner >= 0

    def legal_actions(self) -> list[int]:
        if self.winner >= 0:
            return []
        if self.coin_pending:
            return [TAILS, HEADS]
        return list(range(min(self.k, self.pawns)))

    def is_legal(self, action: int) -> bool:
        return self.winner < 0 and not self.coin_pending and 0 <= action < min(self.k, self.pawns)

    def explain_illegal(self, action: int) -> str:
        if self.winner >= 0:
            return "the game is over"
        if self.coin_pending:
            return "the coin must be flipped first"
        if not 0 <= action < self.k:
            return f"a move takes 1 to {self.k} pawns, not {action + 1}"
        return f"it takes {action + 1} pawns but only {self.pawns} are left"

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_COIN) if self.coin_pending and self.winner < 0 else []

    def apply(self, action: int) -> None:
        if self.coin_pending and self.winner < 0:
            if action not in (TAILS, HEADS):
                raise ValueError(f"nim: the coin has outcomes 0 (tails) and 1 (heads), got {action}")
            self.coin_pending = False
            if action == HEADS:
                self.pawns -= 1
                if self.pawns == 0:
                    self.winner = self.player  # the coin took the last pawn: the mover wins
                    return
            self.player ^= 1
            return
        if not self.is_legal(action):
            raise ValueError(f"nim: illegal action {action}: {self.explain_illegal(action)}")
        self.pawns -= action + 1
        if self.pawns == 0:
            self.winner = self.player
        elif self.coin:
            self.coin_pending = True
        else:
            self.player ^= 1

    def returns(self) -> tuple[float, float]:
        return returns_of_winner(self.winner)

    def key(self) -> tuple[int, int, bool]:
        return (self.pawns, self.player, self.coin_pending)

    def playout(self, rng: random.Random) -> tuple[float, float]:
        rand = rng.random
        pawns, k, player = self.pawns, self.k, self.player
        if self.winner < 0:
            if self.coin_pending:
                self.coin_pending = False
                if rand() < 0.5:
                    pawns -= 1
                if pawns == 0:
                    self.pawns, self.winner = 0, player
                    return self.returns()
                player ^= 1
            while True:
                pawns -= 1 + int(rand() * (k if k < pawns else pawns))
                if pawns == 0:
                    break
                if self.coin and rand() < 0.5:
                    pawns -= 1
                    if pawns == 0:
                        break
                player ^= 1
            self.pawns, self.player, self.winner = 0, player, player
        return self.returns()

    # --- game knowledge ----------------------------------------------------------------
    def strategic_action(self, rng: random.Random) -> int:
        """The Nim study's strategic play-out move: leave a multiple of k+1 when possible,
        else random. MCTS applies it to the searching player's moves only (``searcher_only``)."""
        take = self.pawns % (self.k + 1)
        if take:
            return take - 1
        return int(rng.random() * min(self.k, self.pawns))

    def greedy_action(self, rng: random.Random) -> int:
        """Source 000's greedy rule: take ``n % (K+1)``, or one pawn when that is 0."""
        take = self.pawns % (self.k + 1) or 1
        return take - 1

    def action_label(self, action: int) -> str:
        return f"take {action + 1}"

    def parse_action(self, text: str) -> int:
        text = text.strip().removeprefix("take").strip()
        limit = min(self.k, self.pawns)
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= limit:
            raise ValueError(f"{text!r} is not a move: type how many pawns to take, 1 to {limit}")
        return int(text) - 1

    def to_text(self) -> str:
        return f"{self.pawns} pawns left (take 1..{self.k})" + (" [coin pending]" if self.coin_pending else "")

    def __repr__(self) -> str:
        return f"NimState(pawns={self.pawns}, k={self.k}, coin={self.coin}, player={self.player})"


def observation_of(state: NimState, player: int) -> np.ndarray:
    """Seat ``player``'s observation array of ``state``: ``[pawns, k]``."""
    return np.array([state.pawns, state.k], dtype=np.int64)



def network_input(state: NimState, largest_pile: int = 0) -> np.ndarray:
    """What a learned network sees of the position: the pile one-hot over 0..largest_pile
    (a pile beyond is the caller's to refuse; it reads as the largest). The plain twin
    of the compiled writer (``boardzoo.games.nim.compiled``)."""
    planes = np.zeros(largest_pile + 1, dtype=np.float32)
    planes[min(state.pawns, largest_pile)] = 1.0
    return planes


GAME = Game(
    name=NimState.game_name,
    title="Nim",
    state_class=NimState,
    make_state=lambda rng, n, k, coin: NimState(n, k, coin),
    parameters={"n": Param(21, int, 1, MAX_PAWNS, doc="pawns in the pile"),
                "k": Param(3, int, 1, MAX_TAKE, doc="the most pawns one move takes"),
                "coin": Param(False, bool, doc="a fair coin after each move may take one more pawn")},
    max_length=lambda params: params["n"],  # every move takes at least one pawn
    envs={"nim_v0": "single-pile Nim, take 1..k, last pawn wins; n drawn from a range at reset, optional coin"},
    observation=observation_of,
    network_input=network_input,
    learning=Learning(
        env="nim_v0", shipped="nim.npz", generations=30,
        settings={"params": {"n": (1, 60), "k": 3}, "kind": "mlp", "channels": 64, "blocks": 2, "value_hidden": 32,
                  "largest_pile": 60, "simulations": 16, "games_per_generation": 1024, "games_per_task": 512,
                  "replay_positions": 100_000, "lr_halving_generations": 10, "mirror": False,
                  "anchors": ("random", "greedy"), "probes": ("pile_theory",), "eval_games": 40}),
    knowledge="boardzoo.strategy.nim",
    compiled_core="boardzoo.games.nim.compiled",
    compiled_rollouts=("random", "strategic"),
    chance=True,
    max_chance_outcomes=lambda params: len(_COIN) if params["coin"] else 0,
    variants={"": {"n": (1, 60), "k": (1, 6)}, "coin": {"n": (1, 60), "k": 3, "coin": True}},
    small_envs={"nim": "nim_v0:n=5..9", "nim-coin": "nim_v0:n=5..9,coin=true"},
)
