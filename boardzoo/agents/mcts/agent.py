"""The MCTS agent: spec parameters in, parts composed into a :class:`Search`, a move out.

    make("mcts:iterations=2000")                        # UCB1, c = sqrt(2), random roll-outs
    make("mcts:time=0.01,reuse=true")                   # 10 ms a move, keep the played subtree
    make("mcts:policy=ucbv,c=1.4,zeta=0.5")             # UCB-V (source 003)
    make("mcts:policy=ucb-minimal,c1=11,c2=1")          # UCB-Minimal (source 003)
    make("mcts:q=win-lose,c=1.414,final=value,c_final=0,iterations=500")   # source 001
    make("mcts:nthr=5,max_rollout=200")                 # source 004's expansion threshold
    make("mcts:rollout=strategic")                      # a game's own roll-out policy
    make("mcts:value=three")                            # a game's evaluator as the leaf value
    make("mcts:solver=true")                            # MCTS-Solver
    make("mcts:decisive=true")                          # a move that wins at once is played
    make("mcts:chance=open,time=0.01")                  # Nim with a coin as source 000 searched it
    make("mcts:belief=behaviour,rollout=forward")       # Geister: determinized MCTS
    make("mcts:belief=learned,rollout=tactical")        # ... with the learned colour model
    make("mcts:iterations=800,time=0.17,rollout=tactical,max_rollout=80,belief=learned")  # the first Geister expert
    make("mcts:policy=puct,model=runs/train-geister/weights/latest.npz,belief=network")  # a learned network searched
    make("mcts:policy=puct,model=shipped,belief=network,adjudicate=race,threats=worse")  # ... with Geister's races
    make("mcts:policy=puct,model=runs/ppo_connect_four.zip")   # a trained policy and value
    make("mcts:policy=puct,model=runs/train-connect_four/weights/latest.npz")  # ... or network
    make("mcts:policy=puct,model=shipped")              # ... or the network shipped for the game
    make("mcts:policy=puct", evaluator=my_evaluator)    # any evaluate()/prior() object
    make("mcts:engine=compiled,iterations=15000")       # the compiled engine (fast extra)

The parts and their own parameters (``policy`` chooses the selection part, ``final`` the
final choice; a parameter of a part not chosen is refused):

    selection    policy=ucb1 (c) | ucbv (c, zeta) | ucb-minimal (c1, c2) | puct (c, forced:
                 KataGo's forced playouts at the root)
    expansion    nthr=0: one child per iteration; nthr=N: all children at N visits
                 (puct always expands all children, at the first visit when nthr=0)
    leaf         rollout=NAME with max_rollout, or value=NAME, or an evaluator/model;
                 adjudicate=NAME scores a leaf whose result the game knows by it
                 (Geister: race, a race to the exits that nothing can stop);
                 guard=NAME plays only moves the game's guard allows, whatever
                 the hidden information (Geister: exits, no move that lets a ghost
                 read as blue run free to one of our exits)
    backup       q=win-lose | wins | score ([0, 1]: a draw 1/2); solver=true adds MCTS-Solver proofs
    final        final=visits | value (c_final) | lcb (lcb_z, lcb_share: the surest
                 good move of those well visited); decisive=true plays a move that
                 wins at once first (on hidden information: in each of 16 samples);
                 secret=draw plays a secret choice (Geister's placement) drawn from
                 the evaluator's prior, uniformly without one, and secret=search the
                 search's choice, the same every game (how the figures published
                 before the draw were played)
    root         the position, or (hidden information) samples under belief=NAME
                 (belief=network: the belief head of model=, or of the network shipped
                 for the game: boardzoo train geister); threats=worse reads the
                 opponent's threats the worse way (Geister: a ghost about to escape);
                 threats=coin further out and at least as likely blue as a coin
                 (Geister: a ghost four moves or fewer from leaving);
                 captures=cautious reads the pieces we could take cautiously (Geister:
                 with one red left, as likely red as a coin has them at least);
                 captures=wary too, and those that are no threat as likely red as
                 blue at least;
                 match=learn weighs the belief, over a match, against the game's own
                 model of the opponent (Geister: the opponent profile), by how well
                 each read the colours of the games the match has shown;
                 match=learn-in-game weighs them within each game too, by the colours
                 captures show, beside a third reader (Geister: which colour moves more);
                 match=learn-calibrated is match=learn read again by what the
                 match showed (Geister: how sure to be of every hidden colour, and
                 how the opponent colours the ghosts it leaves within our reach);
                 match=learn-tells is match=learn beside a third reader fitted over
                 the match (Geister: a logistic regression on each ghost's public record)
    chance       chance=tree: each chance outcome its node | open: drawn on the way
                 down and kept in no node, one tree over moves (source 000's coin)

Source 001 writes UCB1 as ``q/n + c*sqrt(2 ln N / n)``: its c = 1.0 is our c = 1.414.
Budgets: ``iterations`` and/or ``time`` (seconds per move), whichever ends first;
``schedule=NAME`` takes the iterations of each decision from one of the game's named
schedules (Nim: ``study-random`` and the like, the Nim study's play-out counts by pile).

``engine=compiled`` (the ``fast`` extra) runs the whole search compiled for the
perfect-information games (:mod:`boardzoo.fast.mcts`), with every option above but
``policy=puct``, evaluators, ``value=`` and ``solver``; for Geister it runs the Python
search with compiled roll-outs. ``engine=auto``, the default, is the Python engine, the
reference (:mod:`boardzoo.strategy.engine` has the rule): a seed gives the same game
whether or not the extra is installed. The compiled engine is seeded too (the same
seed, the same game on it), but its games differ from the Python engine's, since it
draws its own random numbers.
After each decision ``agent.stats`` holds the search statistics, and ``tree_text()`` /
``tree_dot()`` show the tree.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from boardzoo.agents.base import Agent, check_budget, drawn_secret
from boardzoo.agents.mcts.backup import Proofs, backup
from boardzoo.agents.mcts.evaluation import (
    GameCheckedEvaluator,
    LeafEvaluation,
    Prior,
    PriorEvaluator,
    ValueEvaluator,
    adjudicated,
    checked_prior,
    checked_values,
    heuristic_value,
    rollout_function,
)
from boardzoo.agents.mcts.expansion import AllChildren, OneChildPerIteration
from boardzoo.agents.mcts.final import FINAL, decisive_move
from boardzoo.agents.mcts.sampling import (
    CHANCE_TREES,
    MATCH_READINGS,
    NETWORK_BELIEF,
    ReadAgain,
    check_game_options,
    check_model_options,
    root_sampling,
    uniform_odds,
)
from boardzoo.agents.mcts.search import Search
from boardzoo.agents.mcts.selection import SELECTION
from boardzoo.agents.mcts.statistics import decision_statistics
from boardzoo.agents.mcts.tree import Node, leaf_depths, tree_dot, tree_json, tree_size, tree_text
from boardzoo.fast import COMPILED_POLICIES
from boardzoo.games.model import GameState, require
from boardzoo.spec import Registry, refuse_leftovers
from boardzoo.strategy.engine import choose_engine
from boardzoo.strategy.knowledge import check_known, knowledge_of
from boardzoo.values import whole

#: Iterations a decision when no other budget is given.
DEFAULT_ITERATIONS = 1000
#: How many events after our own move a reused tree is searched for the new position.
REUSE_DEPTH = 4
#: What a secret choice (Geister's placement) plays: a move drawn from the evaluator's
#: prior, uniformly without one (``draw``), or the search's choice, the same every game
#: (``search``: how the figures published before this option were played).
SECRET_CHOICES = ("draw", "search")


class MCTSAgent(Agent):
    name = "mcts"
    summary = ("Monte Carlo tree search: ucb1/ucbv/ucb-minimal/puct, q=win-lose|wins|score, final=visits|value|lcb, "
               "iterations/time budgets, reuse, nthr expansion, roll-outs, heuristic or learned evaluators, "
               "chance nodes, solver, determinization")
    #: Part choosers: the spec parameter -> the registry of parts it chooses from.
    parts: ClassVar[Mapping[str, Registry]] = {"policy": SELECTION, "final": FINAL}
    default_notes: ClassVar[Mapping[str, str]] = {
        "iterations": f"{DEFAULT_ITERATIONS} without time= or schedule=", "time": "none (seconds a move)"}

    def __init__(self, seed: int | None = None, iterations: int | None = None, time: float | None = None,
                 policy: str = "ucb1", q: str = "win-lose", final: str = "visits", reuse: bool = False,
                 nthr: int = 0, rollout: str = "random", max_rollout: int = 0, value: str | None = None,
                 model: str | None = None, solver: bool = False, decisive: bool = False,
                 belief: str | None = None, adjudicate: str | None = None, guard: str | None = None,
                 threats: str = "as-believed",
                 captures: str = "as-believed", match: str = "none", engine: str = "auto", evaluator: Any = None,
                 schedule: str | None = None, chance: str = "tree", secret: str = "draw",
                 **options: Any):
        super().__init__(seed)
        if schedule is not None:
            if iterations is not None:
                raise ValueError("mcts: schedule= sets the iterations of every decision; drop iterations=")
            check_known("mcts", "schedule", schedule)
        elif iterations is None and time is None:
            iterations = DEFAULT_ITERATIONS
        check_budget("mcts", "iterations", iterations, time)
        self.engine = choose_engine("mcts", engine, exact_twin=False)
        # The selection constants as given or by default, for the compiled engine.
        self.policy_options = {**SELECTION.defaults(policy), **options} if policy in SELECTION else {}
        try:
            self.select = SELECTION.build(policy, options)
            self.choose = FINAL.build(final, options)
            self.backup = backup(q)
        except (ValueError, TypeError) as error:
            raise ValueError(f"mcts: {error}") from None
        refuse_leftovers("mcts", options, self.parts, {"policy": policy, "final": final})
        whole("mcts: nthr", nthr, low=0)
        whole("mcts: max_rollout", max_rollout, low=0, note=" (0 = no limit)")
        check_game_options("mcts", rollout, belief)
        if value is not None:
            check_known("mcts", "eval", value)
        if adjudicate is not None:
            check_known("mcts", "adjudicator", adjudicate)
        if guard is not None:
            check_known("mcts", "guard", guard)
        check_known("mcts", "threat", threats)
        check_known("mcts", "capture", captures)
        if match not in MATCH_READINGS:
            raise ValueError(f"mcts: match must be one of {', '.join(MATCH_READINGS)}, got {match!r}")
        self.evaluator = self._evaluator(evaluator, model, value)
        valued = isinstance(self.evaluator, ValueEvaluator) or value is not None
        if valued and q == "wins":
            raise ValueError("mcts: q=wins counts the wins of roll-outs to the end; an evaluator's values are "
                             "not wins (use q=win-lose)")
        if policy == "puct" and q != "win-lose":
            raise ValueError(f"mcts: policy=puct counts a child not yet visited as a draw on the win-lose scale; "
                             f"q={q} is another scale (use q=win-lose)")
        self.iterations, self.time_budget = iterations, time
        self.policy_name, self.q, self.final = policy, q, final
        self.reuse, self.nthr, self.rollout_name, self.max_rollout = reuse, nthr, rollout, max_rollout
        self.value_name, self.solver, self.belief = value, solver, belief
        self.decisive, self.adjudicate, self.threats, self.match = decisive, adjudicate, threats, match
        self.captures, self.guard = captures, guard
        #: The belief built before play (:meth:`check`): belief=network's reader, the
        #: belief weighed over a match (match=learn), with threats read the worse way
        #: (threats=worse) and captures cautiously (captures=cautious / wary).
        self.belief_reader: Any = None
        #: match=learn's reader and the game it reads: kept across games, taught by
        #: :meth:`end_of_game`.
        self.match_reader: Any = None
        self._match_game: str | None = None
        self.schedule = schedule
        if chance not in CHANCE_TREES:
            raise ValueError(f"mcts: chance must be one of {', '.join(CHANCE_TREES)}, got {chance!r}")
        if chance == "open" and solver:
            raise ValueError("mcts: chance=open lets one node stand for positions after different outcomes, so no "
                             "node's value can be proven; drop solver=true or chance=open")
        if chance == "open" and reuse:
            raise ValueError("mcts: chance=open keeps no outcome in the tree, so a kept tree cannot be followed "
                             "through the outcome that came; drop reuse=true or chance=open")
        self.chance = chance
        if secret not in SECRET_CHOICES:
            raise ValueError(f"mcts: secret must be one of {', '.join(SECRET_CHOICES)}, got {secret!r}")
        self.secret = secret
        self.expands_all = nthr > 0 or SELECTION.trait(policy, "expands_all", False)
        if self.engine == "compiled":
            unsupported = [what for what, given in ((f"policy={policy}", policy not in COMPILED_POLICIES),
                                                    ("value=", value is not None),
                                                    ("an evaluator or model=", self.evaluator is not None),
                                                    ("solver=true", solver),
                                                    ("chance=open", chance == "open")) if given]
            if unsupported:
                raise ValueError(f"mcts: engine=compiled runs ucb1, ucbv and ucb-minimal with roll-outs; "
                                 f"{' and '.join(unsupported)} need engine=python")
        self._compiled: Any = None
        self.root: Node | None = None
        self.root_state: GameState | None = None
        self._kept: tuple[Node, GameState] | None = None
        #: The composed search and the (model class, game, seat) it was composed for.
        self._search: tuple[tuple, Search] | None = None
        self._wrap_up = 0.0

    @staticmethod
    def _evaluator(evaluator: Any, model: str | None, value: str | None) -> Any:
        if model is not None:
            if evaluator is not None:
                raise ValueError("mcts: give an evaluator object or model=PATH, not both")
            if model == "shipped" or model.endswith(".npz"):  # a network trained by boardzoo train
                from boardzoo.agents.alphazero.evaluator import FileNetworkEvaluator

                evaluator = FileNetworkEvaluator(None if model == "shipped" else model)
            else:
                from boardzoo.agents.sb3 import SB3Evaluator

                evaluator = SB3Evaluator(model)
        if evaluator is None:
            return None
        if not isinstance(evaluator, (ValueEvaluator, PriorEvaluator)):
            raise ValueError(f"mcts: an evaluator needs an evaluate(state) or a prior(state) method; "
                             f"{type(evaluator).__name__} has neither")
        if value is not None and isinstance(evaluator, ValueEvaluator):
            raise ValueError("mcts: value=NAME and an evaluator with evaluate() both value the leaves; give one")
        return evaluator

    def check(self, model: GameState) -> None:
        check_model_options("mcts", model, self.rollout_name, self.belief, self.threats, self.match, self.captures)
        if self.adjudicate is not None:
            adjudicators = knowledge_of(model).adjudicators
            if self.adjudicate not in adjudicators:
                raise ValueError(f"mcts: {model.game_name} has no adjudicator {self.adjudicate!r}; adjudicators are: "
                                 f"{', '.join(adjudicators) or 'none'}")
            if self.engine == "compiled" and not model.capabilities.hidden_information:
                raise ValueError("mcts: engine=compiled scores its own leaves; adjudicate= needs engine=python")
        if self.guard is not None and self.guard not in knowledge_of(model).guards:
            raise ValueError(f"mcts: {model.game_name} has no guard {self.guard!r}; guards are: "
                             f"{', '.join(knowledge_of(model).guards) or 'none'}")
        if self.guard is not None and self.engine == "compiled" and not model.capabilities.hidden_information:
            raise ValueError("mcts: guard= filters the moves of the Python search; it needs engine=python")
        if isinstance(self.evaluator, GameCheckedEvaluator):  # first: model=shipped finds its network here
            self.evaluator.check(model)
        if self.belief == NETWORK_BELIEF:  # the belief head of model=, else of the network shipped for the game
            from boardzoo.agents.network import NetworkBelief

            network = getattr(self.evaluator, "network", None)
            self.belief_reader = NetworkBelief.for_model(
                model, network if network is not None and network.architecture.get("belief") else None)
        base = self.belief_reader if self.belief == NETWORK_BELIEF \
            else knowledge_of(model).beliefs[self.belief] if self.belief is not None else None
        if self.match != "none":
            if self._match_game != model.game_name:  # a match's learning survives a second check
                build = knowledge_of(model).match_reading
                assert build is not None  # check_model_options refused a game without one
                self.match_reader = build(base if base is not None else uniform_odds,
                                          within_game=self.match == "learn-in-game",
                                          calibrated=self.match == "learn-calibrated",
                                          tells=self.match == "learn-tells")
                self._match_game = model.game_name
            base = self.match_reader
        if self.threats != "as-believed":  # check_model_options refused a game without it
            base = ReadAgain(base, knowledge_of(model).threat_readings[self.threats])
        if self.captures != "as-believed":  # check_model_options refused a game without it
            base = ReadAgain(base, knowledge_of(model).capture_readings[self.captures])
        read_again = self.threats != "as-believed" or self.captures != "as-believed" or self.match != "none"
        self.belief_reader = base if read_again or self.belief == NETWORK_BELIEF else None
        if self.engine == "compiled":
            from boardzoo.fast.rollouts import check_compiled

            check_compiled("mcts", model, self.rollout_name)
        if self.value_name is not None:
            heuristic_value(model, self.value_name)
        if self.solver:
            require("mcts", model, "perfect_information", "solver=true")
        if self.chance == "open":
            require("mcts", model, "perfect_information", "chance=open")
        if self.reuse:
            require("mcts", model, "key", "reuse=true")
        if self.schedule is not None and self.schedule not in knowledge_of(model).schedules:
            raise ValueError(f"mcts: {model.game_name} has no iteration schedule {self.schedule!r}; schedules are: "
                             f"{', '.join(knowledge_of(model).schedules) or 'none'}")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = self._compiled = None
        self.root = self.root_state = None
        if self.match_reader is not None:
            self.match_reader.new_game()

    def end_of_game(self, final: GameState, seat: int) -> None:
        if self.match_reader is not None:
            self.match_reader.learn(final, seat)

    def warm_up(self, model: GameState) -> None:
        """A network's first evaluation loads the compiled code that writes its input
        (about half a second): one evaluation now. The compiled engine: load (or, the
        first time after an install, compile) its code for this game, by a two-iteration
        search with a random generator of its own (the agent's is left as it was)."""
        if model.current_player() < 0:
            return
        if self.evaluator is not None:
            state = model.determinize(random.Random(0)) if model.capabilities.hidden_information else model.clone()
            evaluate = self.evaluator.evaluate if isinstance(self.evaluator, ValueEvaluator) else self.evaluator.prior
            evaluate(state)
        if self.engine != "compiled":
            return
        from boardzoo.fast.rollouts import compiled_rollout

        rng = random.Random(0)
        if model.capabilities.hidden_information:  # a Python search with compiled roll-outs
            compiled_rollout(model.game_name, self.rollout_name, self.max_rollout, rng,
                             self._searcher(model))(model.determinize(rng))
            return
        self._compiled_search(model, rng, reuse=False).decide(model, 2, None, self.choose)

    def _compiled_search(self, model: GameState, rng: random.Random, reuse: bool):
        """The compiled engine's search with this agent's settings for ``model``'s game."""
        from boardzoo.fast.tree import CompiledSearch, settings_array

        settings = settings_array(model.game_name, self.policy_name, self.policy_options, self.q, self.nthr,
                                  self.expands_all, self.rollout_name, self.max_rollout,
                                  searcher_only=self._searcher(model) >= 0)
        return CompiledSearch(settings, rng, reuse, REUSE_DEPTH, Node)

    def _searcher(self, model: GameState) -> int:
        """The player a searcher-only roll-out policy steers (the one searching), or -1
        when the policy plays both sides."""
        return model.current_player() if self.rollout_name in knowledge_of(model).searcher_only else -1

    # --- composing the parts ------------------------------------------------------------------
    def _leaf(self, model: GameState) -> LeafEvaluation:
        leaf = self._unadjudicated_leaf(model)
        if self.adjudicate is None:
            return leaf
        return adjudicated(leaf, knowledge_of(model).adjudicators[self.adjudicate])

    def _unadjudicated_leaf(self, model: GameState) -> LeafEvaluation:
        where = f"mcts evaluator {type(self.evaluator).__name__}"
        if isinstance(self.evaluator, ValueEvaluator):
            return checked_values(self.evaluator.evaluate, where)
        if self.value_name is not None:
            return heuristic_value(model, self.value_name).evaluate
        if self.engine == "compiled":
            from boardzoo.fast.rollouts import compiled_rollout

            return compiled_rollout(model.game_name, self.rollout_name, self.max_rollout, self.rng,
                                    self._searcher(model))
        return rollout_function(model, self.rollout_name, self.rng, self.max_rollout)

    def _prior(self) -> Prior | None:
        if isinstance(self.evaluator, PriorEvaluator):
            return checked_prior(self.evaluator.prior, f"mcts evaluator {type(self.evaluator).__name__}")
        return None

    def search_for(self, model: GameState) -> Search:
        """The search this agent runs on ``model``: its parts composed once for a game and
        seat (after :meth:`check`) and kept from move to move, rooted at ``model``."""
        self.check_once(model)
        key = (type(model), model.game_name, model.current_player())
        sampling = root_sampling(model, self.rng, self.belief_reader or self.belief, self.chance)
        if self._search is None or self._search[0] != key:
            expansion = (AllChildren(self.rng, self.nthr or 1, self._prior()) if self.expands_all
                         else OneChildPerIteration(self.rng))
            self._search = (key, Search(sampling, self.select, expansion, self._leaf(model), self.backup,
                                        Proofs() if self.solver else None, self.rng))
        search = self._search[1]
        search.sampling = sampling
        return search

    # --- one decision ----------------------------------------------------------------------
    def act(self, observation: dict, model: GameState) -> int:
        if self.engine == "compiled" and not model.capabilities.hidden_information:
            return self._act_compiled(model)
        start = time.perf_counter()
        search = self.search_for(model)
        root = self._reused_root(model, search) if self.reuse else None
        reused = root is not None and root.visits > 0
        if root is None:
            root = Node(-1, -1)
        search.size = tree_size(root) if reused else 1
        self.root, self.root_state = root, model
        first = search.sampling.sample()
        if first.current_player() < 0:
            raise ValueError("mcts: asked to move in a finished game or at a chance event")
        search.open_root(root, first)
        # The work after the search (final choice, statistics) is charged to the budget too,
        # at what it cost last time.
        deadline = None if self.time_budget is None else start + self.time_budget - self._wrap_up
        limit = self._iteration_limit(model)
        # The tree has no reference cycles (see Node): the cyclic collector has nothing
        # to find in it, and its full passes over a large tree would stall the search.
        collecting = gc.isenabled()
        gc.disable()
        try:
            depths = search.run(root, limit, deadline)
        finally:
            if collecting:
                gc.enable()
        searched = time.perf_counter()
        best = self._final_child(root, search)
        if self.guard is not None:
            allowed = knowledge_of(model).guards[self.guard](model)
            best, added = self._played_instead(root, best, self._allowed_instead(root, best, allowed))
            search.size += added
        if self.decisive:
            best, added = self._played_instead(root, best, decisive_move(search.sampling.sample,
                                                                         model.capabilities.hidden_information))
            search.size += added
        if self.secret == "draw":
            prior = self._prior()
            best, added = self._played_instead(root, best,
                                               drawn_secret(model, self.rng, prior(first) if prior else None))
            search.size += added
        if self.reuse:
            after = search.sampling.sample()
            after.apply(best.action)
            self._kept = (best, after)
        leaves = leaf_depths(root, lambda node: node.children or ())
        self.stats = self._statistics(root, best, search.size, time.perf_counter() - start, depths, leaves, reused)
        self._wrap_up = time.perf_counter() - searched
        return best.action

    def _iteration_limit(self, model: GameState) -> float:
        if self.schedule is not None:
            return knowledge_of(model).schedules[self.schedule](model)
        return self.iterations if self.iterations is not None else math.inf

    def _act_compiled(self, model: GameState) -> int:
        """The whole search compiled (see :mod:`boardzoo.fast.mcts`)."""
        start = time.perf_counter()
        self.check_once(model)
        if model.current_player() < 0:
            raise ValueError("mcts: asked to move in a finished game or at a chance event")
        if self._compiled is None:
            self._compiled = self._compiled_search(model, self.rng, self.reuse)
        deadline = None if self.time_budget is None else start + self.time_budget - self._wrap_up
        limit = self._iteration_limit(model)
        root, best, size, depths, leaves, reused = self._compiled.decide(model, limit, deadline, self.choose)
        if self.decisive:
            best, added = self._played_instead(root, best, decisive_move(model.clone, hidden=False))
            size += added
        searched = time.perf_counter()
        self.root, self.root_state = root, model
        self.stats = self._statistics(root, best, size, searched - start, depths, leaves, reused)
        self._wrap_up = time.perf_counter() - searched
        return best.action

    @staticmethod
    def _played_instead(root: Node, best: Node, played: int | None) -> tuple[Node, int]:
        """The child of ``played`` when there is one to play instead of the search's
        choice, the move that wins at once or a drawn secret, else ``best``; and the nodes
        added to the tree (0 or 1). A move the search never expanded gets a child of its
        own, unvisited, so that the tree and its statistics show the move played."""
        if played is None:
            return best, 0
        for child in root.children or ():
            if child.action == played:
                return child, 0
        node = Node(played, best.mover)
        root.children = [*(root.children or ()), node]
        if isinstance(root.untried, list) and played in root.untried:  # a list once the root is expanded
            root.untried.remove(played)
        return node, 1

    def _allowed_instead(self, root: Node, best: Node, allowed: list[int]) -> int | None:
        """The move to play instead of ``best`` when the guard does not allow it: the
        final choice among the allowed children the search visited, else an allowed move
        drawn at random; None when ``best`` is allowed."""
        if best.action in allowed:
            return None
        children = [c for c in root.children or () if c.action in allowed and c.visits > 0]
        return self.choose(root, children).action if children else self.rng.choice(allowed)

    def _final_child(self, root: Node, search: Search) -> Node:
        children = [c for c in root.children or [] if c.visits > 0] or root.children or []
        if search.proofs is not None:
            winning = search.proofs.winning_child(root, children)
            if winning is not None:
                return winning
            children = search.proofs.candidates(root, children)
        return self.choose(root, children)

    # --- tree reuse -----------------------------------------------------------------------
    def _reused_root(self, model: GameState, search: Search) -> Node | None:
        """The node of the kept tree for the position now in front of us (found within
        ``REUSE_DEPTH`` events of our last move), or None."""
        if self._kept is None:
            return None
        node, state = self._kept
        self._kept = None
        sampling = search.sampling
        target = model.key()
        frontier = [(node, state)]
        for _ in range(REUSE_DEPTH + 1):
            following = []
            for candidate, candidate_state in frontier:
                if candidate_state.current_player() >= 0 and sampling.key(candidate_state) == target:
                    return candidate
                if candidate_state.is_terminal():
                    continue  # this sample ended here (another sample's game may go on)
                for child in candidate.children or []:
                    if sampling.shared and candidate_state.current_player() >= 0 \
                            and not candidate_state.is_legal(child.action):
                        continue  # a move only other samples allow
                    child_state = candidate_state.clone()
                    child_state.apply(child.action)
                    following.append((child, child_state))
            frontier = following
        return None

    # --- statistics and views -----------------------------------------------------------------
    def _statistics(self, root: Node, best: Node, size: int, seconds: float, depths, leaves,
                    reused: bool) -> dict:
        return decision_statistics(root, best, self.root_state.action_label,  # type: ignore[union-attr]
                                   size, seconds, depths, leaves, reused)

    def tree_text(self, depth: int = 2, best: int = 3) -> str:
        """The last search tree as indented text: the ``best`` most visited children of
        every node, ``depth`` levels down."""
        if self.root is None or self.root_state is None:
            return "(no search yet)"
        return tree_text(self.root, self.root_state.action_label, depth, best)

    def tree_json(self, max_nodes: int = 300) -> dict | None:
        """The last search tree's most visited ``max_nodes`` nodes as nested dicts (see
        :func:`~boardzoo.agents.mcts.tree.tree_json`), or None before the first search."""
        if self.root is None or self.root_state is None:
            return None
        return tree_json(self.root, self.root_state.action_label, max_nodes, self.stats.get("action"))

    def tree_dot(self, depth: int = 3, min_visits: int = 1) -> str:
        """The last search tree in Graphviz DOT (nodes with at least ``min_visits`` visits)."""
        if self.root is None or self.root_state is None:
            return "digraph mcts {}"
        return tree_dot(self.root, self.root_state.action_label, depth, min_visits)
