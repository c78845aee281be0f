"""Fuzzing rules that compile but misbehave: generated small games with deep or endless recursion,
huge repeats, deals and draws, numbers and lists that grow, far grid places, empty tops stored
in numbers, and expressions that fail in a show, a statistic, the ends, the ranking, the winners
or an action's `when`. Random playouts (straight and on the machine), simulate's games and the
play screen run on each: they end normally or stop with a RulesRuntimeError located in the rules
file, never a Python exception. The machine and the straight run end alike.

Cases: RULESDSL_FUZZ_CASES if set, else 200 (the `ci` profile) or 10,000 (HYPOTHESIS_PROFILE=long).
With RULESDSL_FUZZ_REPORT=1 the long run prints its figures (cases, outcomes, slowest case).
"""

from __future__ import annotations

import os
import random
import time

import pytest

import rulesdsl
from rulesdsl.simulate import SimulationError, play_one

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
CASES = int(os.environ.get("RULESDSL_FUZZ_CASES") or (10_000 if LONG else 200))
CHUNKS = 10
HUGE = ("1000000000000", "1000000000", "300000", "100", "3", "0")

HEAD = """game "Fuzz"
players 2..3
card chip(v)
cards in deck {{ {n} chip(1), {n} chip(2) }}
zone deck: stack, hidden{refill}
zone pile: stack, public
zone row: grid, public
zone hand per player: hand, private
counter c = {c0}
counter t per player = 0
var x: int = 0
var l: numbers = [1, 2]
"""


class Mild(random.Random):
    """A generator for a game that behaves (small counts, nothing that fails): normal ends too."""


def _huge(r: random.Random) -> str:
    return r.choice(HUGE[3:] if isinstance(r, Mild) else HUGE)


def _statement(r: random.Random) -> str:
    """One statement that may misbehave."""
    k = r.choice([0, 1, 2, 3, 10, 12, 13, 15]) if isinstance(r, Mild) else r.randrange(16)
    if k == 0:
        return f"repeat {_huge(r)} times {{ c += 1 }}"
    if k == 1:
        return f"deal {_huge(r)} from deck to each hand"
    if k == 2:
        return f"draw {_huge(r)} from deck to {r.choice(['pile', 'deck', 'me.hand', 'row'])}"
    if k == 3:
        return f"move top(deck) to row at {_huge(r)}"
    if k == 4:
        return r.choice(["c = c * c + 1", "c += c", "c = c * 10", "x = sum([c, c]) + x", "me.t += c * c"])
    if k == 5:
        return r.choice(["while count(l) > 0 { l = l + l }", "l = l + l", "l = l + [c]"])
    if k == 6:
        return r.choice(["x = top(pile).v", "c += top(pile).v", "let y = top(pile).v + 1", "x = top(me.hand).v"])
    if k == 7:
        return f"rec({r.choice(['1', '5', '50', '2000', 'c'])})"
    if k == 8:
        return f"while c < {_huge(r)} {{ c = c + {r.choice(['1', 'c', '2 * c'])} }}"
    if k == 9:
        return r.choice(["while yes { }", "while c > 0 { c = c - 1 }", "while x < 10 { x += 1 }"])
    if k == 10:
        return "move all from pile to deck"
    if k == 11:
        return f"x = {r.choice(['10 / (c - c)', 'c % (x - x)', 'bad', 'count(deck) / count(pile)'])}"
    if k == 12:
        return "if any(me.hand) { move top(me.hand) to pile }"
    if k == 13:
        return r.choice(["for each p in players { p.t += 1 }",
                         f"for each a in 1..{_huge(r)} {{ for each b in 1..{_huge(r)} {{ x += 1 }} }}"])
    if k == 14:
        return "end round" if r.random() < 0.2 else "c += 1"
    return f"x = {r.choice(['count(deck)', 'c', '0', 'top(deck).v'])}"


def _body(r: random.Random, n: int) -> str:
    return "\n    ".join(_statement(r) for _ in range(n))


def _failing(r: random.Random) -> str:
    """An expression that may fail (division by zero, none) or not."""
    if isinstance(r, Mild):
        return r.choice(["c", "1", "count(deck)"])
    return r.choice(["10 / (c - c)", "top(pile).v", "c", "count(deck) / count(pile)", "bad", "1", "x % (c - 2)"])


def generate(r: random.Random) -> str:
    """A small game that checks, with some misbehaviour spread over it."""
    text = HEAD.format(n=r.choice([2, 6]), c0=r.choice([0, 1, 2]),
                       refill=r.choice(["", ", refill from pile"]))
    bad = _failing(r) if isinstance(r, Mild) else r.choice(["10 / (c - c)", "top(pile).v + 1", "c * c"])
    text += f"define bad = {bad}\n"
    if r.random() < 0.4:
        text += "show bad\n"
    if r.random() < 0.4:
        text += f"statistic s = {_failing(r)}\n"
    recursive = r.random() < 0.5 and not isinstance(r, Mild)
    text += ("procedure rec(n: int) {\n    " + ("rec(n + 1)\n    pong(n)" if recursive else "if n > 0 { rec(n - 1) }")
             + "\n}\nprocedure pong(n: int) {\n    " + ("rec(n + 1)" if r.random() < 0.5 else "c += 0") + "\n}\n")
    text += f"action go {{\n    {_body(r, r.randrange(1, 4))}\n}}\n"
    when = f" when {_failing(r)} > 0" if r.random() < 0.3 else ""
    domain = "3" if isinstance(r, Mild) else r.choice(["3", "(10 / (c - c))", "count(me.hand)"])
    text += f"action play{when} {{\n    choose k in 1..{domain}\n"
    text += f"    {_body(r, r.randrange(0, 3))}\n}}\n"
    text += "action wait { }\n"
    for hook in ("setup", "round start", "turn start", "turn end", "round end"):
        if r.random() < 0.25:
            body = _body(r, r.randrange(1, 3))
            if hook in ("setup", "round end"):
                body = body.replace("end round", "c += 1")
            body = body.replace("me.", "alice_seat.") if "me." in body else body
            if "alice_seat." in body:
                continue  # (`me` only in a turn: leave this hook out)
            text += f"{hook} {{\n    {body}\n}}\n"
    if r.random() < 0.3:
        text += f"round ends when {_failing(r)} > 0 or turn % 3 == 0\n"
    also = f" or {_failing(r)} > 5" if r.random() < 0.3 else ""
    text += f"game ends when turn > {r.choice(['8', '40'])}{also}\n"
    if r.random() < 0.5:
        text += f"rank by lowest {r.choice(['it.t', _failing(r), 'it.t + c'])}\n"
    if r.random() < 0.5 or "rank by" not in text:
        text += f"winners are players where {r.choice(['no', 'it.t > 0', _failing(r) + ' > 0'])}\n"
    return text


def _located(e: rulesdsl.RulesRuntimeError, path: str) -> None:
    assert e.span is not None and e.span.line > 0, f"unlocated: {e}"
    assert str(e).startswith(f"{path}:{e.span.line}:"), str(e)


def run_case(i: int) -> tuple[str, float]:
    """Generate case i and run it every way; returns its outcome and its CPU seconds (a busy
    machine stretches the wall time, not this)."""
    r = Mild(i) if i % 4 == 0 else random.Random(i)  # a quarter of the games behave
    text = generate(r)
    path = f"fuzz{i}.rules"
    t0 = time.process_time()
    try:
        game = rulesdsl.load_text(text, path=path)
    except rulesdsl.RulesError:
        return "refused", time.process_time() - t0  # the checker refused it (a located error too)
    outcome = "ended"
    seed = r.randrange(1000)
    ends = []
    for machine in (False, True):  # straight runs where the rules allow, then the machine alone
        kept = game.straight
        if machine:
            game.straight = False
        try:
            st = game.new_game(seed, log=machine and isinstance(r, Mild))  # (a log costs in loops)
            st.view(0)
            st.playout(random.Random(seed).randrange, 400)
            st.view(1)
            ends.append((st.moves, st.over, list(st.winners)))
        except rulesdsl.RulesRuntimeError as e:
            _located(e, path)
            ends.append(str(e))
            outcome = "runtime error"
        finally:
            game.straight = kept
    assert ends[0] == ends[1], text
    try:
        play_one(game, seed + 1, ["random"], 300)
    except SimulationError as e:
        _located(e.error, path)
        outcome = "runtime error"
    return outcome, time.process_time() - t0


@pytest.mark.fuzz
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_runaway_rules_end_or_fail_located(chunk):
    outcomes: dict[str, int] = {}
    slowest = (0.0, -1)
    for i in range(chunk, CASES, CHUNKS):
        outcome, seconds = run_case(i)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        slowest = max(slowest, (seconds, i))
    if os.environ.get("RULESDSL_FUZZ_REPORT"):
        print(f"\nchunk {chunk}: {outcomes}, slowest case {slowest[1]}: {slowest[0]:.2f} s of CPU")
    # Most generated files must check, or the fuzzing tests little.
    assert outcomes.get("refused", 0) <= sum(outcomes.values()) // 2, outcomes
