"""Agents that don't search: random, greedy (each game's own rule) and human."""

from __future__ import annotations

import sys
from typing import TextIO

from boardzoo.agents.base import Agent, legal_from_mask
from boardzoo.errors import PlayerQuit
from boardzoo.games.model import GameState
from boardzoo.strategy.knowledge import MovePolicy, check_known, knowledge_of


class RandomAgent(Agent):
    name = "random"
    summary = "uniform over the legal actions"

    def act(self, observation: dict, model: GameState) -> int:
        legal = legal_from_mask(observation)
        return int(legal[int(self.rng.random() * len(legal))])


class GreedyAgent(Agent):
    name = "greedy"
    summary = ("the game's greedy rule: Nim takes n % (K+1) (1 when 0); Connect Four wins, "
               "else blocks, else plays centre; Cantris takes the most points; Geister rushes "
               "its blue ghosts to the exits")

    @staticmethod
    def _rule(model: GameState) -> MovePolicy:
        rule = knowledge_of(model).greedy
        if rule is None:
            raise ValueError(f"greedy: {model.game_name} has no greedy rule registered")
        return rule

    def check(self, model: GameState) -> None:
        self._rule(model)

    def act(self, observation: dict, model: GameState) -> int:
        return self._rule(model)(model, self.rng)


class PolicyAgent(Agent):
    """One of the game's roll-out policies, played move by move: a search's model of a
    player made a player of its own (Geister's ``rushing``, ``forward``, ``baiting``)."""

    name = "policy"
    summary = "plays one of the game's roll-out policies move by move (Geister: forward, rushing, baiting)"

    def __init__(self, seed: int | None = None, rollout: str = "random"):
        super().__init__(seed)
        check_known("policy", "rollout", rollout)
        self.rollout = rollout

    def _policy(self, model: GameState) -> MovePolicy | None:
        if self.rollout == "random":
            return None
        policy = knowledge_of(model).rollouts.get(self.rollout)
        if policy is None:
            raise ValueError(f"policy: {model.game_name} has no move-by-move roll-out policy {self.rollout!r}; "
                             f"it has: {', '.join(['random', *knowledge_of(model).rollouts])}")
        return policy

    def check(self, model: GameState) -> None:
        self._policy(model)

    def act(self, observation: dict, model: GameState) -> int:
        policy = self._policy(model)
        if policy is None:
            legal = legal_from_mask(observation)
            return int(legal[int(self.rng.random() * len(legal))])
        return policy(model, self.rng)


#: What a person types to leave a game.
QUIT_WORDS = ("q", "quit", "exit")


class HumanAgent(Agent):
    """Reads moves from a terminal; re-asks until the move is legal."""

    name = "human"
    summary = "a person typing moves at the terminal"
    interactive = True

    def __init__(self, seed: int | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None):
        super().__init__(seed)
        self.stdin, self.stdout = stdin, stdout
        self._told = ""  # the game's input help, once per phase

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._told = ""

    def act(self, observation: dict, model: GameState) -> int:
        stdin, stdout = self.stdin or sys.stdin, self.stdout or sys.stdout
        legal = [int(a) for a in legal_from_mask(observation)]
        labels = ", ".join(model.action_label(a) for a in legal)
        if len(legal) > 20:  # e.g. Geister's 70 placements: a few examples say how to write one
            labels = f"{len(legal)} moves, e.g. " + ", ".join(model.action_label(a) for a in legal[:3]) + ", ..."
        help_text = model.input_help()
        if help_text and help_text != self._told:
            stdout.write(f"how to move: {help_text}\n")
            self._told = help_text
        while True:
            stdout.write(f"your move ({labels}; q quits): ")
            stdout.flush()
            line = stdin.readline()
            if not line:
                stdout.write("\n")
                raise PlayerQuit("you left the game (the input ended)")
            if line.strip().lower() in QUIT_WORDS:
                raise PlayerQuit("you left the game")
            try:
                action = model.parse_action(line)
            except ValueError as error:
                stdout.write(f"{error}\n" + (f"how to move: {help_text}\n" if help_text else ""))
                continue
            if action in legal:
                return action
            stdout.write(f"{line.strip()!r} is not legal here: {model.explain_illegal(action)}\n")
