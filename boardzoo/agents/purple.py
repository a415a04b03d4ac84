"""Geister's purple alpha-beta player (``purple``; the ``geister-expert`` preset).

    make("purple")                              # 0.17 s a move, the adaptive belief
    make("purple:time=1,belief=behaviour")
    make("purple:time=none,depth=4")            # no clock: the same seed plays the same game
    make("purple:belief=profile")               # the opponent's tells learned, over a match too
    make("purple:race=1,red_pull=0.6")          # judge the race to the exits; reds forward as bait
    make("purple:engine=python")                # the Python search even with the fast extra installed

At its turn it builds the purple abstraction of its view
(:mod:`boardzoo.strategy.geister.purple`: hidden opponent ghosts are the worst case,
softened by their odds of blue) and plays the best move of an iterative-deepening
alpha-beta search within ``time`` seconds (the whole move, reading the colours
included), or to ``depth`` plies. Placements are at random. Ghosts that stood on an
exit without escaping are known red.

``belief`` gives each hidden ghost's odds of blue:

* ``adaptive`` (the default) learns during the game whether the opponent bluffs (offers
  its reds to be taken and keeps its blues out of reach) or plays plainly, from how often
  each of its ghosts steps next to ours, read against the colours our captures reveal;
* ``profile`` (:mod:`boardzoo.strategy.geister.profile`) learns the opponent's own offer
  rates of reds and blues, in the game and, when a match tells the agent each finished
  game (:meth:`end_of_game`: the tournament client does, the arena does not), over the
  match; it keeps what it learned across :meth:`reset`;
* the determinization beliefs (``behaviour``, ``learned``, ...) weigh colourings as MCTS
  samples them;
* ``network`` reads the belief head of a network of the hidden-information trainer
  (``boardzoo train geister``): the file ``model=``, else the network shipped for the
  game. Its guess is made from the seat's information state alone.

With ``adaptive`` and ``profile`` an escape threat is read the worse way (the higher of
the belief's odds and a plain player's reading of advances), with ``network`` the worst
of the network's odds and ``adaptive``'s two readings; and the opponent is taken
to capture when we have one red left as often as it is not a bluffer.

The search's optional terms (0, off, by default but for ``red_pull``; the preset sets them):
``hunt`` prices each step between a likely blue and the two nearest of our reds and
``repeat`` each return to a position we moved to before (against Naotti2020, a cautious
bluffer, 19 of 52 recorded games reached the turn limit with one of our reds and one of
its blues stepping back and forth); ``race`` weighs who wins the race to the exits
beyond the horizon; ``red_pull`` (0.1 by default) draws our reds forward, where a bold
opponent takes them (four reds taken win); ``bait`` values our reds next to the
opponent's ghosts by its boldness (:class:`~boardzoo.strategy.geister.purple.PurpleSearch`);
``caution`` (1 by default) multiplies the price of each capture of a ghost that may be
red, which brings the fourth red (a loss) one nearer. The right value depends on the
opponent; the preset sets 2 (the Geister expert tutorial has the matches behind it).

``engine``: ``auto`` (the default) searches with the compiled search of the ``fast`` extra
(:mod:`boardzoo.strategy.geister.compiled_purple`) when it is installed and with the Python one otherwise;
``compiled`` insists on the extra, ``python`` never uses it. The two visit the same nodes
in the same order and choose the same move (the tests hold them to each other), so a
seeded game without a clock (``time=none``) is the same on either; within a time budget
the compiled search, many times as fast, looks deeper (the benchmarks page has the
speeds, the Geister expert tutorial what the depth is worth).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

from boardzoo.agents.base import Agent, check_budget, drawn_secret
from boardzoo.games.geister.board import CLASSIC, ESCAPED, OWN_STEPS, Layout
from boardzoo.games.geister.information import GeisterView
from boardzoo.games.model import GameState
from boardzoo.strategy.engine import choose_engine
from boardzoo.strategy.geister import make_purple_search
from boardzoo.strategy.geister.beliefs import (
    BELIEFS,
    adaptive_readings,
    belief_blue_probabilities,
    blue_probabilities,
    mixed_reading,
    plain_reading,
)
from boardzoo.strategy.geister.profile import OpponentProfile
from boardzoo.strategy.geister.purple import PurpleSearch
from boardzoo.strategy.geister.purple_position import board_key, position_of, purple_board
from boardzoo.values import number

#: The deepest search allowed without a time budget (depth 8 takes minutes a move).
UNTIMED_DEPTH = 8


class PurpleAgent(Agent):
    name = "purple"
    summary = ("Geister: alpha-beta on the purple abstraction (hidden ghosts are the worst case), iterative "
               "deepening within time=, colours read by a belief (default: an opponent model learned in-game)")
    games = frozenset({"geister"})

    def __init__(self, seed: int | None = None, time: float | None = 0.17, belief: str = "adaptive",
                 depth: int = 40, hunt: float = 0.0, repeat: float = 0.0, race: float = 0.0,
                 red_pull: float = 0.1, bait: float = 0.0, caution: float = 1.0, engine: str = "auto",
                 model: str | None = None):
        super().__init__(seed)
        check_budget("purple", "depth", depth, time)
        if time is None and depth > UNTIMED_DEPTH:
            raise ValueError(f"purple: time=none needs depth= at most {UNTIMED_DEPTH} (the search stops at the "
                             f"depth alone), got depth={depth}")
        if belief not in BELIEFS and belief not in ("profile", "network"):
            raise ValueError(f"purple: unknown belief {belief!r}; beliefs are {', '.join(BELIEFS)}, profile, "
                             "network")
        if model is not None and belief != "network":
            raise ValueError("purple: model= is the network whose belief belief=network reads; give both")
        #: The network file belief=network reads (None: the one shipped), and its reader.
        self.network_file = model
        self.network_belief: Callable[[GameState, list[int]], list[float]] | None = None
        options = {"hunt": hunt, "repeat": repeat, "race": race, "red_pull": red_pull, "bait": bait,
                   "caution": caution}
        for option, value in options.items():
            number(f"purple: {option}", value, 0, 1000)
        self.time_budget = None if time is None else float(time)
        self.belief, self.max_depth = belief, depth
        #: The search's engine: ``compiled`` (the fast extra) visits the same nodes in
        #: the same order as ``python``, only faster, so ``auto`` (compiled when
        #: installed) changes how deep a timed move looks, never an untimed one.
        self.engine = choose_engine("purple", engine, exact_twin=True)
        self.requested_compiled = engine == "compiled"
        self.options: dict[str, Any] = {name: float(value) for name, value in options.items()}
        self.search = make_purple_search(self.engine, **self.options)
        #: The Python search of each other member of the Geister family met (the compiled
        #: one holds the classic game's tables only).
        self.searches: dict[Layout, PurpleSearch] = {}
        #: belief=profile's model of the opponent; only :meth:`end_of_game` teaches it.
        self.profile = OpponentProfile()
        #: How often each position (board_key) followed our move in this game.
        self.visited: dict[tuple[int, int, int], int] = {}
        self.last_ply = -1

    def check(self, model: GameState) -> None:
        super().check(model)
        shape = getattr(model, "shape", CLASSIC)
        if shape is not CLASSIC:
            if self.engine == "compiled" and self.requested_compiled:
                raise ValueError(f"purple: engine=compiled plays the classic game only, not {shape}; use "
                                 "engine=auto or python")
            purple_board(shape)  # refuses a board too large for the search's bits
        if self.belief == "network":  # checked against each game played (load_network keeps the file read)
            from boardzoo.agents.alphazero.evaluator import load_network
            from boardzoo.agents.network import NetworkBelief

            network = None if self.network_file is None else load_network(self.network_file)
            self.network_belief = NetworkBelief.for_model(model, network)

    def search_for(self, shape: Layout):
        """The search of ``shape``'s member of the family: the agent's own for the classic
        game, a Python one with that member's tables for another."""
        if shape is CLASSIC:
            return self.search
        if shape not in self.searches:
            self.searches[shape] = PurpleSearch(**self.options, board=purple_board(shape))
        return self.searches[shape]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.visited.clear()
        self.last_ply = -1

    def warm_up(self, model: GameState) -> None:
        """The compiled engine: load its code (compile it, the first time after an install)."""
        if self.engine == "compiled":
            from boardzoo.strategy.geister.compiled_purple import warm_up

            warm_up()

    def end_of_game(self, final: GameState, seat: int) -> None:
        if self.belief == "profile":
            self.profile.learn(final, seat)

    def act(self, observation: dict, model: GameState) -> int:
        start = time.perf_counter()
        view = cast(GeisterView, model)  # check() made sure it is Geister
        shape = view.shape
        drawn = drawn_secret(view, self.rng)
        if drawn is not None:
            return drawn
        seat = view.player
        unknown = view.unknown_ghosts()
        blues_left = shape.blue - view.lost[1 - seat][0]
        threat = None
        boldness = 0.0
        if self.belief == "profile":
            probabilities, kinds = self.profile.readings(view, unknown, blues_left)
            blue = dict(zip(unknown, probabilities))
            boldness = 1.0 - kinds["bluffer"]
            # the threat read the worse way, as for belief=adaptive (below)
            threat = {g: max(blue[g], p) for g, p in zip(unknown, plain_reading(view, unknown, blues_left))}
        elif self.belief in ("adaptive", "network"):
            bluffer, as_bluffer, as_plain = adaptive_readings(view, unknown, blues_left)
            # a bluffer searches and is as cautious as we are; a plain player captures
            boldness = 1.0 - bluffer
            blue = dict(zip(unknown, mixed_reading(bluffer, as_bluffer, as_plain)))
            # a threat of escape is read as the worse of the mixture and the plain kind: a
            # rusher's blue that passed our ghosts on its way looks like bait to a bluffer's
            # reading, and one missed escape loses the game
            threat = {g: max(blue[g], p) for g, p in zip(unknown, as_plain)}
            if self.belief == "network":
                # the network's odds decide captures; an escape is still read the worst
                # way, its odds included: it learned its own league's tells
                if self.network_belief is None:
                    raise ValueError("purple: belief=network reads its network in check(), which was not called")
                network = blue_probabilities(self.network_belief(view, unknown), blues_left)
                blue = dict(zip(unknown, network))
                threat = {g: max(threat[g], p) for g, p in zip(unknown, network)}
        else:
            blue = dict(zip(unknown, belief_blue_probabilities(self.belief, view, unknown, blues_left)))
        marked = {g for g in unknown if view.declined[g] > 0}
        if view.plies < self.last_ply:  # a new game without reset()
            self.visited.clear()
        self.last_ply = view.plies
        position = position_of(view, marked, blue, threat)
        # time= is the whole move's: the colour readings above are charged to it too
        seconds = None if self.time_budget is None else self.time_budget - (time.perf_counter() - start)
        search = self.search_for(shape)
        (source, target), value = search.best_move(position, seconds, self.max_depth, boldness, self.visited)
        if target >= 0:
            after = search.play_ours(position, source, target)
            if after is not None:
                key = board_key(after)
                self.visited[key] = self.visited.get(key, 0) + 1
        self.stats = {"depth": search.depth_done, "nodes": search.nodes, "value": value}
        square = shape.to_own(seat, source)
        ghost = view.board[square] - shape.ghosts * seat
        if target < 0:  # an escape: the direction that leaves the board here
            return next(ghost * 4 + d for d in range(4) if shape.target[seat][square][d] == ESCAPED)
        cols = shape.cols
        sx, sy, tx, ty = source % cols, source // cols, target % cols, target // cols
        return ghost * 4 + OWN_STEPS.index((tx - sx, ty - sy))
