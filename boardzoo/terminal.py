"""A game in the terminal (``boardzoo play``): agents against each other or against
people at the keyboard, each move announced, the board drawn. With hidden information a
person sees the board from their own seat only."""

from __future__ import annotations

import time

from boardzoo import arena, envs
from boardzoo.agents import make as make_agent


def play_in_terminal(env_spec: str, spec_a: str, spec_b: str, seed: int, render: bool, delay: float) -> dict:
    """Play one game of ``spec_a`` against ``spec_b`` on ``env_spec`` here, people at the
    keyboard for ``human`` agents; print the moves (and the board with ``render``, or
    when a person plays) and the result; return the game's record."""
    specs = {"a": spec_a, "b": spec_b}
    agents = {label: make_agent(spec) for label, spec in specs.items()}
    show = render or any(agent.interactive for agent in agents.values())
    humans = [seat for seat, label in (("player_0", "a"), ("player_1", "b")) if agents[label].interactive]
    env = envs.make(env_spec, render_mode="ansi")
    arena.check_agents(agents.values(), env)
    # With hidden information, a person sees the board from their own seat only: one
    # human always from theirs; two humans each at their turn, after a pause to hand over.
    private = humans and env.unwrapped.hidden_information
    names = {"player_0": f"{spec_a} (a)", "player_1": f"{spec_b} (b)"}
    announced: list[tuple[str, str]] = []  # (mover, what the reader may be told), shown after the move

    def reader(seat: str) -> str | None:
        """Whose eyes read the announcement of ``seat``'s move (None: everything may show)."""
        if not private:
            return None
        return humans[0] if len(humans) == 1 else next(s for s in humans if s != seat)

    def announce(env, seat: str, action: int) -> None:
        announced.append((seat, f"{seat}, {names[seat]}, {env.unwrapped.move_text(seat, action, reader(seat))}"))

    def show_move(env):
        raw = env.unwrapped
        over = raw.game.is_terminal()
        seat = raw.agent_selection
        if show and private and len(humans) == 2 and not over and seat in humans:
            print("\033[2J\033[H" + "\n" * 40, flush=True)  # clear the previous seat's board away
            input(f"{seat}'s turn: hand over the keyboard and press Enter when only {seat} can see the screen ")
        mover = None
        if announced:
            mover, text = announced.pop()
            print(text, flush=True)
        if show:
            if not private or over:
                print(env.render() + "\n", flush=True)
            else:
                print(raw.render_view(humans[0] if len(humans) == 1 else seat) + "\n", flush=True)
        if delay and mover is not None and mover not in humans and not over:
            time.sleep(delay)  # time to follow a machine's move before the next one

    if show:
        print(f"player_0: {names['player_0']}   player_1: {names['player_1']}\n")
    record = arena.play_game(env_spec, spec_a, spec_b, 0, seed, env, agents,
                             on_step=show_move, before_step=announce)
    winner = record["winner"]
    result = "draw" if winner is None else f"{names[record['winner_seat']]} wins"
    if record["forfeit"]:
        result += f" ({specs[record['forfeit']['by']]} forfeited: {record['forfeit']['reason']})"
    print(f"result: {result} after {record['plies']} plies")
    return record
