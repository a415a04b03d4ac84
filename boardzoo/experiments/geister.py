"""The Geister MCTS design (source 004, Japanese): the document's own MCTS — expansion
threshold Nthr, payoffs in [-1, 1] with its exploration term, the final move by UCB1 —
and tests of its findings with at least 200 games a pairing: the "purple" view is too
pessimistic and weak against the rushing player; deciding that the nearest ghosts are
blue cannot beat primitive Monte Carlo; forward-biased play-outs cut back-and-forth
loops; tree reuse.
"""

from __future__ import annotations

import random
from statistics import mean

from boardzoo.experiments.framework import SEATS_EFFECT, Experiment, Job, Report, sized, tally
from boardzoo.games.geister import GeisterState
from boardzoo.games.model import TERMINAL
from boardzoo.stats import STATISTICS_NOTE, Comparison, compare_counts, deviations, table, verdicts, wilson
from boardzoo.strategy.knowledge import knowledge_of

ENV = "geister_v0"
#: The document's UCB1 on [-1, 1] payoffs, w/(2n) + 0.5 + sqrt(2 ln t / n), orders children as
#: our mean + 2*sqrt(2) * sqrt(ln t / n) does (the same score times two, minus one): c = 2.828.
C_DOCUMENT = 2.828
NTHR = 5  # the document leaves Nthr open ("set as suits")
#: A head-to-head is *even* when its share of decided games is shown within 0.1 of one half.
EVEN_MARGIN = 0.1
RUSHING = "greedy"
FLAT_MC = "flatmc:playouts=5,rollout=forward,max_rollout=60"


#: The Nthr the open choice is measured against: every leaf expanded at its first visit.
NTHR_OTHER = 1


def document_mcts(iterations: int, belief: str = "behaviour", rollout: str = "forward", reuse: bool = False,
                  nthr: int = NTHR) -> str:
    """The document's MCTS: Nthr expansion, [-1, 1] payoffs, its UCB1 in search and for
    the final move; roll-outs to the game's own 200-ply limit."""
    return (f"mcts:iterations={iterations},nthr={nthr},q=win-lose,c={C_DOCUMENT},final=value,c_final={C_DOCUMENT},"
            f"rollout={rollout},belief={belief}" + (",reuse=true" if reuse else ""))


def pairings(iterations: int) -> list[tuple[str, str, str, str]]:
    """(key, agent a, agent b, what it tests)."""
    mcts = lambda **kw: document_mcts(iterations, **kw)  # noqa: E731
    return [
        ("purple vs rushing", mcts(belief="purple"), RUSHING, "purple view against the rushing player"),
        ("behaviour vs rushing", mcts(), RUSHING, "the control: a learned belief against the rushing player"),
        ("nearest-blue vs flat MC", mcts(belief="nearest-blue"), FLAT_MC, "nearest-is-blue against primitive MC"),
        ("uniform vs flat MC", mcts(belief="uniform"), FLAT_MC, "the control: no colour guess against primitive MC"),
        ("forward vs random roll-outs", mcts(), mcts(rollout="random"), "forward-biased play-outs, head to head"),
        ("reuse vs no reuse", mcts(reuse=True), mcts(), "tree reuse, head to head"),
        (f"Nthr {NTHR} vs Nthr {NTHR_OTHER}", mcts(), mcts(nthr=NTHR_OTHER),
         "the open Nthr (a deviation), head to head"),
    ]


def playout_statistics(policy: str, count: int, seed: int) -> tuple[float, float]:
    """(mean plies, draw share) of ``count`` play-outs from random placements, both sides
    playing ``policy`` to the game's 200-ply limit."""
    rng = random.Random(seed)
    plies, draws = [], 0
    move = knowledge_of(GeisterState()).rollouts.get(policy)
    for _ in range(count):
        state = GeisterState()
        while not all(state.placed):
            actions = state.legal_actions()
            state.apply(actions[int(rng.random() * len(actions))])
        start = state.plies
        while state.current_player() != TERMINAL:
            actions = state.legal_actions()
            state.apply(move(state, rng) if move else actions[int(rng.random() * len(actions))])
        plies.append(state.plies - start)
        draws += state.returns()[0] == 0
    return mean(plies), draws / count


class GeisterMCTS(Experiment):
    name = "geister-mcts"
    source = "source 004 (Japanese): the Geister MCTS design"
    compares = ("the document's MCTS (Nthr, [-1, 1] payoffs, UCB1 final move) testing its findings: purple view "
                "vs rushing, nearest-is-blue vs flat Monte Carlo, forward play-outs, tree reuse; the open Nthr's "
                "effect")
    default_size = "MCTS at 50 iterations, 200 games per pairing"
    full_size = "MCTS at 300 iterations, 400 games per pairing (the document prints no sizes)"
    expected_time = "about 8 min: the findings' pairings and the Nthr one, timed apart (measured: 7 min 38 s)"
    full_time = "about 3.5 h on 2 cores (estimated: 6x the iterations, twice the games)"

    def jobs(self, games: int | None, full: bool) -> list[Job]:
        iterations = 300 if full else 50
        return [Job(key, ENV, a, b, sized(games, full, 200, 400), seed=index * 7919)
                for index, (key, a, b, _) in enumerate(pairings(iterations))]

    def report(self, results: dict[str, list[dict]], jobs: list[Job]) -> Report:
        rows = []
        for key, _, _, what in pairings(0):
            records = results[key]
            wins, draws, losses = tally(records)
            low, high = wilson(wins, len(records))
            rows.append([key, what, len(records), f"{wins}/{draws}/{losses}",
                         f"{wins / len(records):.3f} ({low:.3f}..{high:.3f})", f"{draws / len(records):.3f}",
                         f"{mean(play_plies(r) for r in records):.1f}"])
        share = {key: tally(results[key]) for key in results}

        def win_share(key: str) -> tuple[int, int]:
            return share[key][0], len(results[key])

        def decided(key: str) -> tuple[int, int]:
            wins, _, losses = share[key]
            return wins, wins + losses

        # The four findings' tests, corrected together (Holm): purple's share against the
        # behaviour belief's (Fisher), nearest-blue's against one half (binomial), and the
        # two head-to-heads' decided games against one half (binomial, and equivalence).
        purple, behaviour = win_share("purple vs rushing"), win_share("behaviour vs rushing")
        nearest = win_share("nearest-blue vs flat MC")
        tests: list[Comparison | str] = [
            compare_counts(*purple, behaviour[0] / behaviour[1], behaviour[1], EVEN_MARGIN),
            compare_counts(*nearest, 0.5, None, EVEN_MARGIN)]
        for key in ("forward vs random roll-outs", "reuse vs no reuse"):
            wins, games = decided(key)
            tests.append(compare_counts(wins, games, 0.5, None, EVEN_MARGIN) if games else "no decided games")
        purple_words, nearest_words, forward_words, reuse_words = verdicts(tests)
        # The assumption's own test, outside the findings' family.
        nthr_key = f"Nthr {NTHR} vs Nthr {NTHR_OTHER}"
        nthr_wins, nthr_games = decided(nthr_key)
        nthr_words = verdicts([compare_counts(nthr_wins, nthr_games, 0.5, None, EVEN_MARGIN)
                               if nthr_games else "no decided games"])[0]
        purple_worse = purple[0] / purple[1] < behaviour[0] / behaviour[1]
        nearest_wins = nearest[0] / nearest[1]
        nearest_low, _ = wilson(*nearest)

        def even(words: str) -> str:
            return words.replace("equivalent within", "even within").replace("differs", "one side stronger")

        random_plies, random_draws = playout_statistics("random", 300, 11)
        forward_plies, forward_draws = playout_statistics("forward", 300, 11)
        text = [
            "# Source 004 — the Geister MCTS design",
            "",
            "The document's MCTS: a leaf is expanded after Nthr visits (the document leaves Nthr open; we use "
            f"{NTHR}), payoffs in [-1, 1] (a draw is 0) with its exploration term `w/(2n) + 0.5 + sqrt(2 ln t / n)` "
            f"(our `q=win-lose` with c = {C_DOCUMENT}, the same ordering), and the final move by that UCB1 "
            f"(`final=value,c_final={C_DOCUMENT}`). Roll-outs run to the game's 200-ply limit (a draw). Hidden "
            "colours are sampled from a belief each iteration. The rushing player is `greedy`; primitive Monte "
            f"Carlo is `{FLAT_MC}`. Game lengths are plies of play (the two placements not counted).",
            "",
            STATISTICS_NOTE,
            "",
            table(["pairing (first agent's result)", "tests", "games", "won/drawn/lost", "win rate (95% CI)",
                   "draw rate", "mean plies of play"], rows),
            "",
            "## The document's findings",
            "",
            f"- *The purple view is too pessimistic and does badly against the rushing player*: against the rushing "
            f"player, purple {purple[0] / purple[1]:.3f} vs the behaviour belief {behaviour[0] / behaviour[1]:.3f} — "
            + ("reproduced" if purple_worse and purple_words.startswith("differs") else
               "not reproduced" if purple_words.startswith("differs") else
               "both do badly, purple no worse by more than the margin" if purple_words.startswith("equivalent")
               else "not decided") + f": {purple_words}.",
            f"- *Deciding that the nearest ghosts are blue cannot beat primitive Monte Carlo*: nearest-blue wins "
            f"{nearest_wins:.3f} (95% CI from {nearest_low:.3f}) against flat Monte Carlo; the uniform belief "
            f"{share['uniform vs flat MC'][0] / len(results['uniform vs flat MC']):.3f} — "
            + ("not reproduced: nearest-blue beats primitive Monte Carlo"
               if nearest_wins > 0.5 and nearest_words.startswith("differs") else
               "reproduced: nearest-blue does not beat primitive Monte Carlo") + f" ({nearest_words}).",
            f"- *Forward-biased play-outs cut back-and-forth loops* (\"no visible change, but fewer up-and-down "
            f"loops\"): 300 play-outs from random placements last {random_plies:.1f} plies with random moves "
            f"({random_draws:.3f} reach the 200-ply draw) and {forward_plies:.1f} with forward-biased moves "
            f"({forward_draws:.3f} draws). In play, forward against random roll-outs: "
            f"{even(forward_words)}.",
            f"- *Tree reuse* (the document expects about a tenth of the information to carry over, \"so it "
            f"probably will not help\"): reuse against no reuse, {even(reuse_words)}.",
            "",
        ]
        text += deviations([
            ("Budget", "the document gives no iteration count; the default run uses 50 iterations a move (300 with "
                       "`--full`, the tournament client's setting)."),
            ("Nthr", f"left open by the document; {NTHR}. Its effect, head to head against the same MCTS "
                     f"expanding every leaf at its first visit (Nthr {NTHR_OTHER}): {nthr_wins} of {nthr_games} "
                     f"decided games won, {even(nthr_words)}."),
            ("The purple view", "the document treats an unknown ghost as both colours; a sampled position must give "
                                "each ghost one colour, so purple is the pessimistic sample: red where we could take "
                                "it, blue nearest our home rows (`belief=purple`)."),
            ("Opponents", "the document names a rushing AI and primitive Monte Carlo without defining them; ours "
                          "are boardzoo's rushing player and flat Monte Carlo (5 play-outs a move, forward-biased)."),
            ("Seats", "alternate game by game (the document does not say): " + SEATS_EFFECT + "."),
        ])
        return Report("\n".join(text))


def play_plies(record: dict) -> int:
    """Plies of play: the arena's plies without the two placements."""
    return max(record["plies"] - 2, 0)
