"""Fuzzing the inputs a user hands the engine: forged saved games (of every game in games/),
type-confused transcripts (through `rulesdsl replay`) and garbage at the `play` prompt.

Every input ends in a clear refusal or a clean run: never a Python exception, never a hang.
The `ci` profile runs a few hundred cases of each kind; the long one at least 10,000 each:

    HYPOTHESIS_PROFILE=long pytest tests/test_fuzz_inputs.py      (or RULESDSL_FUZZ_CASES=N)

Each test prints its figures (cases, refused, accepted, ...) with `pytest -s`.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import os
import random
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

from rulesdsl import load
from rulesdsl.cli import main
from rulesdsl.engine.saves import OPTIONAL as OPTIONAL_FIELDS
from rulesdsl.engine.saves import BadSave
from rulesdsl.errors import RulesRuntimeError
from rulesdsl.testing import Transcript, engine_problems

from .conftest import GAMES

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
_ASKED = int(os.environ.get("RULESDSL_FUZZ_CASES") or 0)
# (ci: 500 forged saves, about 20 from each game's real saves (were 1,000: half of this module's
# time); the long run keeps 10,000.)
SAVE_CASES = _ASKED or (10_000 if LONG else 500)
TRANSCRIPT_CASES = _ASKED or (10_000 if LONG else 300)
PROMPT_LINES = _ASKED or (10_000 if LONG else 300)
HANG_SECONDS = 5  # a case that runs longer than this is a hang: the test fails
PLAY_ON = 40  # moves played on from a save that loaded

RULES = sorted(p for p in [*GAMES.glob("*.rules"), *GAMES.glob("examples/*.rules"), *GAMES.glob("variants/*.rules")]
               if not p.name.endswith(".test.rules"))


@contextmanager
def no_hang(what: str):
    """Fails the test if the block runs for more than HANG_SECONDS of CPU time: a hang (a loop
    that does not end), not a machine that is slow or busy with other work."""

    def alarm(signum, frame):
        raise AssertionError(f"hung for more than {HANG_SECONDS} s: {what}")

    old = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, HANG_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


@pytest.fixture
def loaded_once(monkeypatch):
    """The commands load each game once (a game is not changed by playing it): the time of a case
    is then the input's own, not compiling the rules again."""
    import rulesdsl.cli
    import rulesdsl.testing

    real = rulesdsl.cli.load

    @functools.cache
    def cached(path, players, params):
        return real(path, players=players, **dict(params))

    def load_once(path, players=None, **params):
        try:
            return cached(str(path), players, tuple(sorted(params.items())))
        except TypeError:  # a value that cannot be a key: load it anew
            return real(path, players=players, **params)

    monkeypatch.setattr(rulesdsl.cli, "load", load_once)
    monkeypatch.setattr(rulesdsl.testing, "load", load_once)


# ---------------------------------------------------------------- saved games


@functools.cache
def game_of(path: Path, players: int | None = None):
    return load(path, players=players)


@functools.cache
def saves_of(path: Path, players: int | None = None) -> tuple[str, ...]:
    """Real saves of a game: at setup, mid-game (at turn decisions and inside actions), and over."""
    g = game_of(path, players)
    rng = random.Random(path.name)
    out = []
    for seed in range(2):
        st = g.new_game(seed)
        stops = sorted(rng.sample(range(1, 120), 4))
        while not st.is_over and st.moves < 2_000:
            if st.moves in stops or st.moves == 0 or (st.pending > 0 and len(out) % 3 == 0 and rng.random() < 0.05):
                out.append(st.to_json())
            st.apply_index(rng.randrange(st.num_moves()))
        out.append(st.to_json())
    return tuple(out)


def other_count(path: Path) -> int | None:
    g = game_of(path)
    counts = [n for n in range(g.min_players, g.max_players + 1) if n != g.players]
    return counts[0] if counts else None


def _nodes(data, path=()):
    """Every (path, value) of a JSON tree (iteratively: saves are shallow)."""
    todo = [(path, data)]
    while todo:
        p, v = todo.pop()
        yield p, v
        if isinstance(v, list):
            todo.extend(((*p, k), x) for k, x in enumerate(v))
        elif isinstance(v, dict):
            todo.extend(((*p, k), x) for k, x in v.items())


def _get(data, path):
    for k in path:
        data = data[k]
    return data


def _set(data, path, value):
    _get(data, path[:-1])[path[-1]] = value


ODD_VALUES = (1.5, "1", True, False, None, [], {}, -1, 0, 2**64, -(2**70), [[0]], {"a": 1}, "", float("nan"))


def forge(rng: random.Random, text: str, path: Path) -> tuple[str, str, bool]:
    """A forged save made from a real one: (text, kind of forgery, whether it must be refused)."""
    data = json.loads(text)
    kind = rng.choice(("number", "number", "swap", "duplicate", "delete", "type", "type", "card twice",
                       "card missing", "move card", "deep", "huge", "other count", "other game", "field"))
    nodes = [p for p, _ in _nodes(data) if p]
    if kind == "number":
        ints = [p for p, v in _nodes(data) if p and type(v) is int]
        p = rng.choice(ints)
        v = _get(data, p)
        _set(data, p, rng.choice((v + 1, v - 1, -1, 0, -v, v + rng.randrange(1, 100), 2**63, 2**64,
                                  rng.randrange(-9, 99))))
    elif kind in ("swap", "duplicate", "delete"):
        lists = [p for p, v in _nodes(data) if isinstance(v, list) and v] + [()]
        p = rng.choice(lists)
        v = _get(data, p)
        if kind == "delete" and isinstance(v, dict):
            del v[rng.choice(list(v))]
        elif isinstance(v, list):
            i, j = rng.randrange(len(v)), rng.randrange(len(v))
            if kind == "swap":
                v[i], v[j] = v[j], v[i]
            elif kind == "duplicate":
                v.insert(j, copy.deepcopy(v[i]))
            else:
                del v[i]
    elif kind == "type":
        _set(data, rng.choice(nodes), copy.deepcopy(rng.choice(ODD_VALUES)))
    elif kind in ("card twice", "card missing", "move card"):
        zones = data["zones"]
        full = [zi for zi, z in enumerate(zones) if any(c is not None for c in z)]
        zi = rng.choice(full)
        k = rng.choice([k for k, c in enumerate(zones[zi]) if c is not None])
        c = zones[zi][k]
        if kind == "card missing":
            del zones[zi][k]
        else:
            if kind == "move card":
                del zones[zi][k]
            dst = zones[rng.randrange(len(zones))]
            dst.insert(rng.randrange(len(dst) + 1), c)
    elif kind == "deep":
        p = rng.choice(nodes)
        depth = rng.choice((7, 50, 5_000, 200_000))
        marker = "@@DEEP@@"
        _set(data, p, marker)
        return json.dumps(data).replace(f'"{marker}"', "[" * depth + "]" * depth), kind, True
    elif kind == "huge":
        ints = [p for p, v in _nodes(data) if p and type(v) is int]
        marker = "@@HUGE@@"
        _set(data, rng.choice(ints), marker)
        return json.dumps(data).replace(f'"{marker}"', "9" * rng.choice((25, 400, 4_400, 20_000))), kind, True
    elif kind == "other count":
        n = other_count(path)
        if n is None:
            return forge(rng, text, path)
        other = json.loads(rng.choice(saves_of(path, n)))
        mine = game_of(path)
        # A save of another player count, with this game's fingerprint (and players, parameters) pasted in.
        for field in rng.choice((("fingerprint",), ("fingerprint", "players"), ("fingerprint", "players", "params"))):
            other[field] = data[field] if field != "players" else mine.players
        return json.dumps(other), kind, True
    elif kind == "other game":
        other_path = rng.choice([p for p in RULES if p != path])
        other = json.loads(rng.choice(saves_of(other_path)))
        for field in ("game", "fingerprint", "players", "params"):
            other[field] = data[field]
        # Only a game of another shape is sure to be refused: a variant's state may be one of its base.
        a, b = game_of(other_path), game_of(path)
        return json.dumps(other), kind, (a.ncards, a.nzones, len(a.codes)) != (b.ncards, b.nzones, len(b.codes))
    else:  # an unknown field, or one missing
        if rng.random() < 0.5:
            data[rng.choice(("extra", "Zones", "seed", ""))] = 1
            return json.dumps(data), kind, True
        field = rng.choice(list(data))
        del data[field]
        # (a field written only when it holds something may be missing: the save then says it is empty)
        return json.dumps(data), kind, field not in OPTIONAL_FIELDS
    return json.dumps(data), kind, kind in ("card twice", "card missing")


def play_on(st, rng: random.Random, moves: int = PLAY_ON) -> str:
    """Play random moves from a loaded state: only a located runtime error of the rules may stop it."""
    for _ in range(moves):
        if st.is_over:
            return "ended"
        st.move_texts()
        try:
            st.apply_index(rng.randrange(st.num_moves()))
        except RulesRuntimeError:
            return "rules error"
    return "played"


def check_forged_saves(cases: int, seed: int = 0) -> dict[str, int]:
    rng = random.Random(seed)
    figures = {"cases": 0, "refused": 0, "accepted": 0, "rules errors after": 0}
    for case in range(cases):
        path = RULES[case % len(RULES)]
        game = game_of(path)
        text, kind, impossible = forge(rng, rng.choice(saves_of(path)), path)
        with no_hang(f"{path.name}, case {case} ({kind})"):
            try:
                st = game.state_from_json(text)
            except BadSave as e:
                figures["refused"] += 1
                assert e.field and e.problem and "\n" not in str(e)
                continue
            except Exception as e:
                raise AssertionError(f"{path.name} case {case} ({kind}): {type(e).__name__}: {e}") from e
            finally:
                figures["cases"] += 1
            assert not impossible, f"{path.name} case {case}: an impossible save ({kind}) was accepted"
            figures["accepted"] += 1
            figures[f"accepted: {kind}"] = figures.get(f"accepted: {kind}", 0) + 1
            assert engine_problems(st) is None, f"{path.name} case {case} ({kind}): {engine_problems(st)}"
            assert game.state_from_json(st.to_json()).to_json() == st.to_json()
            try:
                outcome = play_on(st, random.Random(case))
            except Exception as e:
                raise AssertionError(f"{path.name} case {case} ({kind}) loaded, then: {type(e).__name__}: {e}") from e
            figures["rules errors after"] += outcome == "rules error"
    return figures


@pytest.mark.fuzz
def test_forged_saves_are_refused_or_play_on_cleanly():
    figures = check_forged_saves(SAVE_CASES)
    print(f"\nforged saves: {figures}")
    assert figures["cases"] == SAVE_CASES and figures["refused"] > SAVE_CASES // 2


def test_real_saves_of_every_game_load_and_play_on():
    for path in RULES:
        for text in saves_of(path):
            st = game_of(path).state_from_json(text)
            assert st.to_json() == text
            play_on(st, random.Random(0), 10)


# ---------------------------------------------------------------- transcripts

TRANSCRIPT_GAMES = [GAMES / "tempurra.rules", GAMES / "go_fish.rules", GAMES / "examples" / "fruit_bowl.rules"]


@functools.cache
def real_transcript(path: Path) -> dict:
    g = game_of(path)
    st = g.new_game(7, log=False)
    rng = random.Random(7)
    moves = []
    while not st.is_over and len(moves) < 25:
        texts = st.move_texts()
        i = rng.randrange(len(texts))
        moves.append(texts[i])
        st.apply_index(i)
    return json.loads(Transcript(str(path), g.players, {}, 7, moves, max_moves=25).to_json())


def confuse(rng: random.Random, data: dict) -> str:
    """A transcript with a field of the wrong type or value, or broken as JSON."""
    data = copy.deepcopy(data)
    kind = rng.randrange(9)
    field = rng.choice(("file", "players", "params", "seed", "moves", "failure", "max_moves", "generator"))
    if kind <= 2:
        data[field] = copy.deepcopy(rng.choice(ODD_VALUES + (-5, 10**30, "x" * 50)))
    elif kind == 3:
        data.pop(field)
    elif kind == 4:
        data["params"] = rng.choice(({"players": 3}, {"path": "x"}, {"names": [1]}, {"hand_size": [2]},
                                     {"hand_size": None}, {"hand_size": 10**40}, {"": 1}, {"no_such": 1},
                                     {"hand_size": "many"}, [["hand_size", 2]]))
    elif kind == 5:
        moves = data["moves"]
        if moves:
            moves[rng.randrange(len(moves))] = copy.deepcopy(rng.choice(ODD_VALUES + ("no such move", "\x00", "①")))
        else:
            data["moves"] = [1]
    elif kind == 6:
        data[field] = "@@DEEP@@"
        depth = rng.choice((100, 5_000, 200_000))
        return json.dumps(data).replace('"@@DEEP@@"', "[" * depth + "]" * depth)
    elif kind == 7:
        text = json.dumps(data)
        cut = rng.randrange(len(text))
        return rng.choice((text[:cut], text[:cut] + "\x00" + text[cut:], "9" * 5_000, "[]", "null",
                           json.dumps(data["moves"])))
    else:
        data["generator"] = rng.choice((1, 0, 3, None, "2", 2.0, True))
    return json.dumps(data)


@pytest.mark.fuzz
def test_type_confused_transcripts_replay_or_are_refused_cleanly(tmp_path, loaded_once):
    rng = random.Random(1)
    figures = {"cases": 0, "refused": 0, "replayed": 0}
    bases = [(p, real_transcript(p)) for p in TRANSCRIPT_GAMES]
    target = tmp_path / "t.json"
    for case in range(TRANSCRIPT_CASES):
        path, data = bases[case % len(bases)]
        text = confuse(rng, data)
        target.write_bytes(text.encode("utf-8", "surrogatepass") if rng.random() < 0.9 else b"\xff\xfe" + text.encode())
        out, err = io.StringIO(), io.StringIO()
        with no_hang(f"transcript case {case}: {text[:200]}"):
            code = main(["replay", str(path), str(target), "--quiet"], stdin=io.StringIO(""), stdout=out, stderr=err)
        shown = out.getvalue() + err.getvalue()
        assert "Traceback" not in shown and code in (0, 1, 2), f"case {case}: {text[:300]}\n{shown[-2000:]}"
        if code == 2:
            assert err.getvalue().startswith("rulesdsl replay: error: ") or "error:" in err.getvalue(), shown[-500:]
            figures["refused"] += 1
        else:
            figures["replayed"] += 1
        figures["cases"] += 1
    print(f"\ntranscripts: {figures}")
    assert figures["refused"] > TRANSCRIPT_CASES // 2


# ---------------------------------------------------------------- the play prompt


def garbage_line(rng: random.Random) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:  # random unicode, control characters included
        return "".join(chr(rng.choice((rng.randrange(0, 0x80), rng.randrange(0x80, 0x3000),
                                       rng.randrange(0x1F000, 0x1FAFF)))) for _ in range(rng.randrange(1, 30))
                       ).replace("\n", " ").encode("utf-8", "replace")
    if kind == 1:  # digits of every kind, and huge numbers
        return rng.choice(("²", "①", "٣", "𝟗", "0", "-1", "9" * rng.choice((10, 4_301, 20_000)), "1e9", " 2 ",
                           "⁰¹²", "00001")).encode()
    if kind == 2:  # bytes that are not UTF-8
        return bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randrange(1, 8)))
    if kind == 3:
        return b"\x00\x1b[2J\x07\r\x0b\x0c" * rng.randrange(1, 4)
    if kind == 4:
        return rng.choice((b"help", b"view", b"moves", b"log", b"m", b"?", b"", b"   ", b"HELP"))
    if kind == 5:
        return rng.choice((b"serve", b"s", b"eat 99", b"choose nobody", b"pass pass", b"\xe2\x80\xa8"))
    if kind == 6:
        return ("x" * rng.choice((100, 10_000, 100_000))).encode()
    return str(rng.randrange(1, 4)).encode()  # now and then a real move: the game goes on


@pytest.mark.fuzz
def test_garbage_at_the_prompt_never_breaks_the_game(loaded_once):
    rng = random.Random(2)
    figures = {"lines": 0, "sessions": 0, "ended by input": 0, "left": 0, "games over": 0}
    games = [GAMES / "tempurra.rules", GAMES / "tamalo.rules", GAMES / "go_fish.rules"]
    while figures["lines"] < PROMPT_LINES:
        lines = [garbage_line(rng) for _ in range(rng.randrange(5, 40))]
        figures["lines"] += len(lines)
        stdin = io.TextIOWrapper(io.BytesIO(b"\n".join(lines) + b"\n"), encoding="utf-8")  # strict
        out, err = io.StringIO(), io.StringIO()
        path = games[figures["sessions"] % len(games)]
        with no_hang(f"prompt session {figures['sessions']}"):
            code = main(["play", str(path), "--seed", str(figures["sessions"])], stdin=stdin, stdout=out, stderr=err)
        figures["sessions"] += 1
        text = out.getvalue()
        assert "Traceback" not in text + err.getvalue() and not err.getvalue(), err.getvalue()[-2000:]
        assert code in (0, 1)
        if "End of input" in text:
            figures["ended by input"] += 1
        elif "You left the game." in text:
            figures["left"] += 1
        else:
            assert "Winner:" in text or "You win" in text or "You share" in text, text[-1000:]
            figures["games over"] += 1
        assert len(text) < 400 * len(lines) + 200_000  # what is shown back is short
    print(f"\nprompt input: {figures}")


@pytest.mark.parametrize("line", ["²", "①", "9" * 4301, "\x00", "\x1b[2J"])
def test_odd_entries_are_not_moves_and_the_game_goes_on(line):
    stdin = io.TextIOWrapper(io.BytesIO(line.encode() + b"\n1\nquit\n"), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["play", str(GAMES / "tempurra.rules"), "--seed", "3"], stdin=stdin, stdout=out, stderr=err) == 0
    assert "You left the game." in out.getvalue() and not err.getvalue()
