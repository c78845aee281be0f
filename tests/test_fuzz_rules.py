"""Fuzzing rules files: the seed games mutated, and files generated from the grammar, go through
`rulesdsl.load` (read, parse, check, compile) and, when they make a game, a short random playout.

Whatever the input, loading gives a game or a RulesError whose every diagnostic is located (a
span with line > 0), and playing gives moves or a RulesRuntimeError: never another exception,
never more than TIME_LIMIT seconds of processor time for one case (a hang).

Cases per kind: RULESDSL_FUZZ_CASES if set, else by the hypothesis profile (`ci`: CI_CASES,
`long`: LONG_CASES). `python -m tests.test_fuzz_rules [CASES]` runs the same cases outside pytest
and prints the counts that docs/testing.md quotes.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import RulesError, RulesRuntimeError

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
SOURCES = sorted(p.relative_to(GAMES) for p in GAMES.rglob("*.rules"))

# The ci cases are the same on every run (derandomized): a guard against regressions, while the long
# run (10,000 of each, 0 failures in 20,000 when last run) is the search. 250 + 200 (were 500 + 400,
# half the suite's fuzzing time) still meet every kind of mutation and most rules of the grammar.
CI_CASES = {"mutated": 250, "generated": 200}  # (about 12 s of CPU together)
LONG_CASES = 10_000
TIME_LIMIT = 5.0  # seconds of processor time: a case slower than this is a hang (cases take milliseconds)
PLAY_MOVES = 60  # moves of the random playout of a file that makes a game


def cases(kind: str) -> int:
    if os.environ.get("RULESDSL_FUZZ_CASES"):
        return int(os.environ["RULESDSL_FUZZ_CASES"])
    return LONG_CASES if os.environ.get("HYPOTHESIS_PROFILE") == "long" else CI_CASES[kind]


def fuzz_settings(n: int):
    """n examples; the CI's are the same every run (derandomized), longer runs draw new ones."""
    return settings(max_examples=n, deadline=None, database=None, derandomize=n <= max(CI_CASES.values()),
                    suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------- one case


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"over {TIME_LIMIT} s of processor time" if signum == signal.SIGPROF else "blocked")


def run_case(path: Path, allow: Path, seed: int) -> str:
    """Load the file and play a little: the outcome's name ('game', 'error', 'runtime'). Raises
    AssertionError for an unlocated diagnostic, Hang for a case over TIME_LIMIT, and lets any
    other exception through: each is a failure of the fuzz test.

    The limit counts the processor time the case uses (ITIMER_PROF), so a machine busy with other
    work does not make a case a hang; a case waiting on something (a read that blocks) is caught
    by the clock, at ten times the limit. Each timer fires again every 0.5 s after: an exception
    raised inside a garbage collector's callback is lost, the next one is not."""
    old = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT, 0.5)
    signal.setitimer(signal.ITIMER_REAL, 10 * TIME_LIMIT, 0.5)
    try:
        try:
            game = rulesdsl.load(path, allow_paths=[allow])
        except RulesError as e:
            unlocated = [d for d in e.diagnostics if d.span is None or d.span.line <= 0]
            assert not unlocated, f"unlocated: {[d.message for d in unlocated]}"
            e.format()  # (quoting the source must not fail either)
            return "error"
        try:
            play(game, seed)
        except RulesRuntimeError:
            return "runtime"
        return "game"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in old.items():
            signal.signal(sig, handler)


def play(game: rulesdsl.Game, seed: int) -> None:
    rng = random.Random(seed)
    state = game.new_game(seed=seed)
    for _ in range(PLAY_MOVES):
        if state.is_over:
            return
        moves = state.legal_moves()
        state.apply_index(rng.randrange(len(moves)))


# ---------------------------------------------------------------- mutated seed games

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_]\w*|\d+|\s+|==|!=|<=|>=|\+=|-=|\.\.|.', re.S)
ODD_CHARS = ["\0", "\x0c", "\u2028", "\x85", "\t", "\r", "\x1b", "\ufeff", "é", "{", "}", "(", ")", '"', "#", "\n"]
WORDS = ["game", "players", "define", "action", "if", "else", "while", "repeat", "choose", "move", "to", "not",
         "and", "or", "where", "import", "extends", "replace", "remove", "show", "end", "turn", "round", "none"]
NESTS = [("-", ""), ("not ", ""), ("(", ")"), ("min(1, ", ")"), ("[", "]"), ("if yes then 1 else ", ""),
         ("1 + ", ""), ("yes and (", ")"), ("-(", ")")]


def mutate(text: str, rng: random.Random) -> str:
    """One to four token-level changes: the kinds of slips and attacks the issue found."""
    toks = TOKEN.findall(text)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 4])):
        solid = [i for i, t in enumerate(toks) if not t.isspace()] or [0]
        i = rng.choice(solid)
        op = rng.randrange(11)
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, toks[i])
        elif op == 2:
            j = rng.choice(solid)
            toks[i], toks[j] = toks[j], toks[i]
        elif op == 3:
            toks.insert(i, rng.choice(ODD_CHARS))
        elif op == 4:
            toks.insert(i, chr(rng.randrange(1, 0x2FFFF)))
        elif op == 5:  # a huge or odd number where a number was
            nums = [k for k, t in enumerate(toks) if t.isdigit()] or [i]
            toks[rng.choice(nums)] = rng.choice(["0", "1" + "0" * rng.randint(9, 30), "9" * rng.randint(90, 5000)])
        elif op == 6:  # deep nesting around a value
            vals = [k for k, t in enumerate(toks) if t.isdigit() or re.fullmatch(r"[a-z_]\w*", t)] or [i]
            k = rng.choice(vals)
            head, tail = rng.choice(NESTS)
            n = rng.choice([2, 30, 60, 63, 64, 65, 70, 200, 400])
            toks[k] = head * n + toks[k] + tail * n
        elif op == 7:  # deep blocks inside a block
            opens = [k for k, t in enumerate(toks) if t == "{"] or [i]
            n = rng.choice([5, 31, 32, 33, 60, 300])
            toks.insert(rng.choice(opens) + 1, " if yes {" * n + "}" * n + " ")
        elif op == 8:
            toks.insert(i, f" {rng.choice(WORDS)} ")
        elif op == 9:  # a name where another was (type and scope confusion)
            names = [t for t in toks if re.fullmatch(r"[a-z_]\w*", t)] or ["x"]
            toks[i] = rng.choice(names)
        else:  # whole lines: duplicated, dropped, or moved
            lines = "".join(toks).split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            action = rng.randrange(3)
            if action == 0:
                lines.insert(a, lines[b])
            elif action == 1:
                del lines[a]
            else:
                lines[a], lines[b] = lines[b], lines[a]
            toks = TOKEN.findall("\n".join(lines))
    return "".join(toks)


@cache
def workspace() -> Path:
    """A copy of games/ that mutants are written into, beside what they import and extend."""
    where = Path(tempfile.mkdtemp(prefix="rulesdsl-fuzz-")) / "games"
    shutil.copytree(GAMES, where)
    return where


def mutated_case(seed: int) -> str:
    rng = random.Random(seed)
    source = rng.choice(SOURCES)
    path = workspace() / source.parent / "_fuzz.rules"
    text = mutate((GAMES / source).read_text(encoding="utf-8"), rng)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))  # (a lone surrogate: a file that is not UTF-8)
    return run_case(path, workspace(), seed)


@pytest.mark.fuzz
@fuzz_settings(cases("mutated"))
@given(st.integers(0, 2**32))
def test_mutated_seed_games_load_or_fail_located_and_play_or_fail_cleanly(seed):
    mutated_case(seed)


# ---------------------------------------------------------------- generated from the grammar

MINI = '''game "Fuzz"
players 2..3
zone deck: stack, hidden
zone hand per player: hand
card c(v)
cards in deck { 4 c(1), 4 c(2) }
counter score per player = 0
var x = 0
setup { deal 2 from deck to each hand }
action pass { x += 1 }
game ends when x > 5
winners are players
'''


@cache
def grammar_strategy() -> st.SearchStrategy[str]:
    """Files from the grammar. hypothesis' from_lark puts no space between tokens (neighbours glue
    into one name): each terminal is drawn here with spaces around it, so most strings parse, and
    names come from a few that a game declares, so many reach the checker and some compile."""
    from hypothesis.extra.lark import from_lark

    from tests.grammar_gen import grammar_lark

    parser = grammar_lark()
    explicit = {}
    for t in parser.terminals:
        if t.name in ("WS", "COMMENT"):
            continue
        if t.pattern.type == "str":
            explicit[t.name] = st.just(f" {t.pattern.value} ")
        else:
            explicit[t.name] = st.from_regex(t.pattern.to_regexp(), fullmatch=True).map(lambda s: f" {s} ")
    names = ["x", "me", "hand", "deck", "c", "v", "p", "it", "score", "top", "count", "turn", "a"]
    explicit["NAME"] = st.sampled_from(names).map(lambda s: f" {s} ")
    explicit["STRING"] = st.one_of(st.from_regex(r'"[^"\\\n]{0,8}"', fullmatch=True),
                                   st.sampled_from(['"x.rules"', '"../x.rules"', '"/etc/passwd"', '""', '"{x}"']))
    return st.tuples(st.booleans(), from_lark(parser, start="start", explicit=explicit)).map(
        lambda t: (MINI if t[0] else "") + t[1])


@cache
def generated_dir() -> Path:
    where = Path(tempfile.mkdtemp(prefix="rulesdsl-fuzz-gen-"))
    (where / "x.rules").write_text(MINI, encoding="utf-8")
    return where


def generated_case(text: str, seed: int = 0) -> str:
    path = generated_dir() / "_gen.rules"
    path.write_text(text, encoding="utf-8")
    return run_case(path, generated_dir(), seed)


@pytest.mark.fuzz
@pytest.mark.skipif(sys.platform == "win32", reason="the time guard uses SIGALRM")
@fuzz_settings(cases("generated"))
@given(st.deferred(lambda: grammar_strategy()))
def test_grammar_generated_files_load_or_fail_located(text):
    generated_case(text)


# ---------------------------------------------------------------- outside pytest: the figures


def _count(strategy: st.SearchStrategy, case, n: int) -> tuple[Counter[str], float, float]:
    """n cases: how many of each outcome, the slowest case's seconds, and the total."""
    counts: Counter[str] = Counter()
    slowest = 0.0

    @fuzz_settings(n)
    @given(strategy)
    def count(x):
        nonlocal slowest
        t0 = time.perf_counter()
        try:
            counts[case(x)] += 1
        except Hang:
            counts["HANG"] += 1
            print(f"hang: {x!r}"[:300], file=sys.stderr)
        except AssertionError as e:
            counts["UNLOCATED"] += 1
            print(f"{e}: {x!r}"[:300], file=sys.stderr)
        except Exception as e:  # (a traceback: what this counts)
            counts["TRACEBACK"] += 1
            print(f"{type(e).__name__}: {e}: {x!r}"[:300], file=sys.stderr)
        slowest = max(slowest, time.perf_counter() - t0)

    start = time.perf_counter()
    count()
    return counts, slowest, time.perf_counter() - start


def main(argv: list[str]) -> int:
    """`[N [KIND]]`: run N cases (default LONG_CASES) of each kind, or of KIND (mutated, generated),
    and print what happened: docs/testing.md."""
    n = int(argv[0]) if argv else LONG_CASES
    failures = 0
    kinds = {"mutated": (st.integers(0, 2**32), mutated_case), "generated": (st.deferred(lambda: grammar_strategy()),
                                                                             generated_case)}
    for kind, (strategy, case) in kinds.items():
        if len(argv) > 1 and kind != argv[1]:
            continue
        counts, slowest, seconds = _count(strategy, case, n)
        failures += counts["HANG"] + counts["UNLOCATED"] + counts["TRACEBACK"]
        print(f"{kind}: {sum(counts.values())} cases in {seconds:.0f} s (slowest {slowest:.2f} s): "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
