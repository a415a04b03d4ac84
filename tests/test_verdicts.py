"""The one rule behind every verdict: a comparison's word from its two p-values, a
document's claim from its test, and the texts that print both so that they can be
decided again from what a report shows."""

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from boardzoo.stats import (
    ALPHA,
    CLAIMS,
    claim_word,
    compare_counts,
    compare_samples,
    finding,
    p_text,
    scale_to_decide,
    to_decide,
    verdict_text,
    verdict_word,
)

WORDS = ("differs, but by less than", "differs", "equivalent within", "inconclusive")
#: A printed verdict: its word (with the margin where it names one), its test, both p-values.
VERDICT = re.compile(r"(differs, but by less than ±[\d.]+|differs|equivalent within ±[\d.]+|inconclusive) "
                     r"\((?P<test>[^;]*?) (?P<p>p [<=] [\d.]+); (?:TOST ±(?P<margin>[\d.]+) (?P<q>p [<=] [\d.]+)"
                     r"|no TOST: [^;]*)(?:; [^)]*)?\)")
#: A judged claim: its word, the claim, the difference's sign, then its test's verdict.
FINDING = re.compile(r"(reproduced|contradicted|not decided) \(claim: (?P<claim>[a-z ]+); (?:difference "
                     r"(?P<difference>[+-][\d.]+)|nothing measured); (?P<verdict>.*)\)$")


def printed_p(text: str) -> float:
    """A p-value as printed, read back (``p < 0.001`` as just below it)."""
    return 0.0009 if text == "p < 0.001" else float(text.split("=")[1])


def decided_again(verdict: str) -> str:
    """The word a printed verdict's own p-values give by the rule."""
    match = VERDICT.match(verdict)
    assert match, f"not a printed verdict: {verdict!r}"
    return verdict_word(printed_p(match["p"]), 1.0 if match["q"] is None else printed_p(match["q"]))


def word_of(verdict: str) -> str:
    return next(word for word in (*WORDS, "no test") if verdict.startswith(word))


@given(st.floats(0, 1), st.floats(0, 1), st.sampled_from([0.03, 0.1, 2.0]))
def test_a_printed_verdict_is_decided_again_by_its_own_p_values(p, q, margin):
    word = verdict_word(p, q)
    text = verdict_text(word, "Fisher's exact test", p, q, margin, "; Holm, 4 tests")
    assert word_of(text) == word and decided_again(text) == word


def test_a_margin_as_wide_as_the_shares_gets_no_equivalence_test():
    """Rare events (a floor): 6 of 200 against 11 of 200 is no evidence of equivalence
    within ±0.1, which allows one side never to win at all."""
    from boardzoo.stats import compare_counts, verdicts

    floor = compare_counts(6, 200, 11 / 200, 200, 0.1)
    assert floor.p is not None and floor.p_equivalent is None and "floor or a ceiling" in floor.reason
    verdict = verdicts([floor])[0]
    assert verdict.startswith("inconclusive (Fisher's exact test p = ") and "no TOST: ±0.1 is as wide" in verdict
    assert decided_again(verdict) == "inconclusive"
    assert compare_counts(195, 200, 0.97, 200, 0.05).p_equivalent is None  # a ceiling
    assert compare_counts(60, 200, 0.35, 200, 0.1).p_equivalent is not None


def test_p_values_are_printed_with_the_digits_the_five_percent_line_needs():
    for p in (0.04996, 0.05004, 0.0499999, 0.04951):
        assert (printed_p(p_text(p)) < ALPHA) == (p < ALPHA), p_text(p)
    assert p_text(0.0004) == "p < 0.001" and p_text(0.2345) == "p = 0.23" and p_text(0.0123) == "p = 0.012"


@pytest.mark.parametrize("claim, word, difference, expected", [
    ("higher", "differs", 0.2, "reproduced"),
    ("higher", "differs", -0.2, "contradicted"),
    ("higher", "differs, but by less than", 0.02, "reproduced"),
    ("higher", "equivalent within", 0.01, "contradicted"),
    ("higher", "inconclusive", 0.3, "not decided"),
    ("lower", "differs", -0.2, "reproduced"),
    ("lower", "equivalent within", -0.01, "contradicted"),
    ("not higher", "differs", -0.2, "reproduced"),
    ("not higher", "differs", 0.2, "contradicted"),
    ("not higher", "equivalent within", 0.04, "reproduced"),
    ("not higher", "inconclusive", -0.3, "not decided"),
    ("not lower", "differs", -0.1, "contradicted"),
    ("not lower", "equivalent within", -0.04, "reproduced"),
    ("no different", "equivalent within", 0.04, "reproduced"),
    ("no different", "differs, but by less than", 0.04, "reproduced"),
    ("no different", "differs", 0.4, "contradicted"),
    ("no different", "no test", 0.0, "not decided"),
])
def test_a_claim_is_judged_by_its_tests_verdict_and_the_differences_sign(claim, word, difference, expected):
    assert claim_word(claim, word, difference) == expected


@given(st.sampled_from(CLAIMS), st.floats(0, 1), st.floats(0, 1), st.floats(-1, 1))
def test_a_claim_is_never_reproduced_by_an_inconclusive_test(claim, p, q, difference):
    verdict = verdict_text(verdict_word(p, q), "Welch's t-test", p, q, 0.1)
    judged = FINDING.match(finding(claim, verdict, difference))
    assert judged and judged["verdict"] == verdict
    if p >= ALPHA and q >= ALPHA:
        assert judged[1] == "not decided"
    if judged[1] == "reproduced":
        assert p < ALPHA or q < ALPHA


def test_an_unknown_claim_or_verdict_is_refused():
    with pytest.raises(ValueError, match="a claim is one of"):
        claim_word("better", "differs", 0.1)
    with pytest.raises(ValueError, match="not a verdict"):
        finding("higher", "agrees (close enough)", 0.1)


# --- how many games would decide an undecided claim ----------------------------------------------
@given(st.integers(30, 400), st.floats(0.15, 0.85), st.floats(-0.2, 0.2), st.integers(1, 10))
def test_at_half_power_the_sample_asked_for_sits_on_the_deciding_tests_line(games, share, shift, tests):
    """With power 1/2 the sample asked for is the one where the figures seen would put the
    deciding test (the difference's, or the equivalence one inside the margin) on its
    corrected line: a test of the scaled sample at the same shares lands near it."""
    other = round(min(max(share + shift, 0.12), 0.88) * games) / games
    test = compare_counts(round(share * games), games, other, games, 0.1)
    scale = scale_to_decide(test, tests, power=0.5)
    if scale is None:
        assert test.difference == 0 and test.p_equivalent is None
        return
    bigger = round(games * scale)
    assume(bigger >= 60)  # below, rounding the counts moves the shares themselves
    again = compare_counts(round(test.ours * bigger), bigger, other, bigger, 0.1)
    corrected = min(p * tests for p in (again.p, again.p_equivalent) if p is not None)
    # Near the line, not on it: Fisher's exact test and the adjusted shares are not the
    # normal approximation the scale comes from (over 3,000 draws: 0.24 to 4.0 times it).
    assert ALPHA / 5 < corrected < ALPHA * 5


def test_more_power_asks_for_more_games_and_a_decided_claim_for_none():
    test = compare_counts(82, 179, 0.5, None, 0.1)  # reuse against no reuse, the Geister pilot
    assert scale_to_decide(test, 7, power=0.5) < scale_to_decide(test, 7) < scale_to_decide(test, 7, power=0.95)
    assert scale_to_decide(test, 1) < scale_to_decide(test, 7)
    note = to_decide("not decided (claim: not higher; ...)", test, 7)
    needed = int(re.search(r"about ([\d,]+) where it has 179", note)[1].replace(",", ""))
    assert needed == pytest.approx(179 * scale_to_decide(test, 7), abs=10)
    assert to_decide("reproduced (claim: not higher; ...)", test, 7) == ""
    assert to_decide("not decided (claim: lower; nothing measured; no test (no games))", "no test (no games)", 7) == ""


def test_a_claim_no_sample_could_decide_is_said_so():
    floor = compare_counts(3, 200, 3 / 200, 200, 0.1)  # the same share, at a floor: no TOST, no difference
    assert floor.p_equivalent is None and scale_to_decide(floor, 3) is None
    assert "No sample could decide it" in to_decide("not decided (claim: lower; ...)", floor, 3)
    samples = compare_samples([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 0.5)  # no difference, equivalence reachable
    assert scale_to_decide(samples, 1) > 1


# --- the committed reports ------------------------------------------------------------------------
REPORTS = sorted((__import__("pathlib").Path(__file__).parent.parent / "docs" / "experiments").rglob("report.md"))
#: Words that judged a verdict before the one rule, and may not come back.
RETIRED = re.compile(r"\b(agrees|not shown|supported|even within|one side stronger|not reproduced)\b")
#: Where a verdict word stands in a report: after a table cell's bar, a bold mark, or a
#: claim's "not decided (" / "— " lead.
VERDICT_WORD = re.compile(r"(?:\| |\*\*|— |\(|: )(differs, but by less than|differs|equivalent within|inconclusive|"
                          r"reproduced|contradicted|not decided)\b")


def printed_verdicts(text: str):
    """Every verdict a report prints: its start, its word, and the text from there."""
    for match in VERDICT_WORD.finditer(text):
        yield match.start(1), match[1], text[match.start(1):]


def closing(text: str) -> str:
    """``text`` up to the parenthesis that closes its first one (a verdict's own)."""
    depth = 0
    for i, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if char == ")" and depth == 0:
            return text[:i + 1]
    raise AssertionError(f"an unclosed verdict: {text[:120]!r}")


@pytest.mark.parametrize("report", REPORTS, ids=lambda path: str(path.parent.name if path.parent.name != "full"
                                                                   else path.parent.parent.name + "/full"))
def test_every_verdict_in_a_committed_report_comes_from_the_one_rule(report):
    """Each verdict word stands with the p-values it was decided by, and deciding again
    from those gives the same word; each claim's word follows from its verdict and the
    difference's sign; no retired word is left."""
    text = report.read_text(encoding="utf-8")
    assert not RETIRED.search(text), f"{report}: {RETIRED.search(text)[0]!r}"
    seen = 0
    for _, word, rest in printed_verdicts(text):
        verdict = closing(rest) if "(" in rest.split("\n")[0] else rest.split("|")[0].split("\n")[0]
        if word in ("reproduced", "contradicted", "not decided"):
            judged = FINDING.match(verdict)
            assert judged, f"{report}: {verdict[:160]!r}"
            inner = judged["verdict"]
            difference = 0.0 if judged["difference"] is None else float(judged["difference"])
            assert claim_word(judged["claim"], word_of(inner), difference) == word, verdict
            if word_of(inner) != "no test":
                assert judged["difference"] is not None and decided_again(inner) == word_of(inner), inner
        else:
            assert decided_again(verdict) == word, f"{report}: {verdict[:160]!r}"
        seen += 1
    assert seen or report.parent.name == "cantris-rules-fit", f"{report} prints no verdict"  # the fit only scores


@pytest.mark.parametrize("report", REPORTS, ids=lambda path: str(path.relative_to(path.parents[2])))
def test_every_committed_report_carries_its_command_and_its_code(report):
    text = report.read_text(encoding="utf-8")
    made = text.split("## How this report was made")
    assert len(made) == 2, f"{report} does not say how it was made"
    assert re.search(r"Command: `boardzoo experiment run [a-z-]+( --full)?( --games \d+)?( --engine \w+)?`", made[1])
    assert re.search(r"games played on \d{4}-\d\d-\d\d by commit [0-9a-f]{12}:", made[1]), made[1]
    assert "with local changes" not in made[1]


@pytest.mark.parametrize("report", REPORTS, ids=lambda path: str(path.relative_to(path.parents[2])))
def test_every_deviation_in_a_committed_report_states_its_effect(report):
    section = report.read_text(encoding="utf-8").split("## Deviations from the document's protocol")
    assert len(section) == 2, f"{report} has no Deviations section"
    items = [line for line in section[1].split("\n## ")[0].splitlines() if line.startswith("- **")]
    assert items and all("effect" in item for item in items), [item[:80] for item in items if "effect" not in item]
