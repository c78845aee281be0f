"""Rule testing: scenarios written in the rules language, invariants checked after every move,
and hypothesis-generated games that try to break both (and the engine's own promises).

Used by `rulesdsl test`, `rulesdsl replay` and the pytest plugin. A failure of a generated game
is shrunk by hypothesis to a short game and written as a transcript (file, players, parameters,
seed, moves) that `rulesdsl replay` plays back.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

import attrs

from . import load
from .engine.game import Game, ScenarioRt
from .engine.rng import GENERATOR_VERSION
from .engine.state import State, normalize
from .errors import IllegalMove, RulesRuntimeError

PROFILES = {"ci": 50, "long": 1000}
DEFAULT_MAX_MOVES = 10_000
# Hypothesis's own draws make the first choices of a game, one a decision (so a failure shrinks
# decision by decision); later ones come from a generator seeded by one of its draws. A fixed
# number, so that a try's game depends only on its draws, never on how hypothesis runs it (first
# run, variation, shrink). A game that ends sooner draws the rest unused: hypothesis caps a try at
# the draws of the game it varies (its first tries, at a few times those of the simplest game),
# and a game that drew only what it used would be given up half played whenever a change made it
# longer (1,344 tries for the bundled games' 1,100 generated games, drawing up to 100 a game).
DRAWN_MOVES = 30


# ---------------------------------------------------------------- results


@attrs.define
class Failure(Exception):
    """A check that did not hold, with where it is written (a span) when it has one."""

    message: str
    span: object = None

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span is not None and getattr(self.span, "line", 0) else ""
        return f"{where}{self.message}"


@attrs.define
class ScenarioResult:
    name: str
    span: object
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class TranscriptError(ValueError):
    """A file that is not a transcript this version can replay; says which field is wrong."""

    def __init__(self, field: str, problem: str):
        self.field = field
        super().__init__(f"{field}: {problem}" if field else problem)


# The names `load` takes itself: a parameter cannot be called so.
_LOAD_ARGUMENTS = ("path", "players", "names")


@attrs.define
class Transcript:
    """Everything needed to play a game again: `rulesdsl replay FILE TRANSCRIPT`. `generator`
    names the mapping from seeds to games it was made under (engine/rng.py): under another, its
    seed deals another game, so it is refused rather than replayed wrong."""

    file: str
    players: int
    params: dict
    seed: int
    moves: list[str]
    failure: str = ""
    max_moves: int = DEFAULT_MAX_MOVES
    generator: int = GENERATOR_VERSION

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self), indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Transcript:
        """A transcript read back, every field checked: TranscriptError (a ValueError) names the
        first wrong one."""
        try:
            data = json.loads(text)
        except RecursionError:
            raise TranscriptError("", "it is nested too deeply to be a transcript") from None
        except ValueError as e:  # not JSON, bytes that are not UTF-8, a number of too many digits
            raise TranscriptError("", f"it is not JSON ({e})") from None
        if type(data) is not dict:
            raise TranscriptError("", "it must be a JSON object")
        unknown = sorted(set(data) - {f.name for f in attrs.fields(cls)}, key=str)
        if unknown:
            raise TranscriptError(str(unknown[0])[:40], "is not a field of a transcript")
        for name in ("file", "players", "seed", "moves"):
            if name not in data:
                raise TranscriptError(name, "is missing")
        version = data.get("generator", 1)
        if type(version) is not int:
            raise TranscriptError("generator", "must be a whole number (the generator's version)")
        if version != GENERATOR_VERSION:
            raise TranscriptError("", f"this transcript was made by generator version {version}; its seed replays "
                                  f"a different game now (version {GENERATOR_VERSION}): make it again")
        file = _typed(data, "file", str, "a text")
        players = _typed(data, "players", int, "a whole number")
        if players < 1:
            raise TranscriptError("players", f"is {players}; a game has at least 1 player")
        params = _typed(data, "params", dict, "an object of parameter names and values", {})
        for name, value in params.items():
            if name in _LOAD_ARGUMENTS or not name.isidentifier():
                raise TranscriptError("params", f"{name[:40]!r} cannot be a parameter's name")
            if type(value) not in (int, bool, str):
                raise TranscriptError(f"params.{name}", "must be a number, a text or true/false")
        seed = _typed(data, "seed", int, "a whole number")
        moves = _typed(data, "moves", list, "a list of move texts")
        for k, m in enumerate(moves):
            if type(m) is not str:
                raise TranscriptError(f"moves[{k}]", "must be a move's text")
        failure = _typed(data, "failure", str, "a text", "")
        max_moves = _typed(data, "max_moves", int, "a whole number", DEFAULT_MAX_MOVES)
        if max_moves < 0:
            raise TranscriptError("max_moves", f"is {max_moves}; it must be at least 0")
        return cls(file, players, dict(params), seed, list(moves), failure, max_moves, version)

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_json() + "\n", encoding="utf-8")
        return p


def _typed(data: dict, name: str, kind: type, words: str, default=None):
    """data[name] if it is of this kind (a bool is no number here); the default if it is absent and
    has one."""
    if name not in data and default is not None:
        return default
    v = data[name]
    if type(v) is not kind:
        shown = "null" if v is None else type(v).__name__
        raise TranscriptError(name, f"must be {words}, not {shown}")
    return v


@attrs.define
class PropertyResult:
    games: int
    moves: int
    failure: Failure | None = None
    transcript: Transcript | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


# ---------------------------------------------------------------- checks of a state


def engine_problems(st: State) -> str | None:
    """The engine's own promises about a state: every card in one place, a decision pending
    until the end, winners that are seats."""
    g = st.game
    seen = [c for z in st.zones for c in z if c is not None]
    if len(seen) != g.ncards or set(seen) != set(range(g.ncards)):
        return (f"card conservation: {g.ncards} cards should be in the zones, "
                f"found {len(seen)} ({len(set(seen))} distinct)")
    for zi, z in enumerate(st.zones):
        for c in z:
            if c is not None and st.loc[c] != zi:
                return f"card {g.card_text[c]} is in {g.zone_names[zi]} but recorded elsewhere"
    if st.is_over:
        # (no winner at all is a result the rules may give: `winners are` naming nobody)
        if any(not 0 <= w < g.players for w in st.winners):
            return f"the game is over but its winners are {st.winners}"
    elif st.num_moves() < 1 or not 0 <= st.chooser < g.players:
        return "the game is not over, yet nobody has a move to make"
    return None


def invariant_problems(st: State) -> Failure | None:
    """The first of the game's `invariant` declarations that does not hold, if any."""
    for name, test, span, source in st.game.invariants:
        try:
            ok = test(st)
        except RulesRuntimeError as e:
            return Failure(f"invariant '{name}' could not be evaluated: {e}", span)
        if not ok:
            return Failure(f"invariant '{name}' does not hold: {source}", span)
    problem = engine_problems(st)
    return Failure(problem) if problem else None


# ---------------------------------------------------------------- scenarios


def _load_with(path: str, players: int, params: tuple, limits: tuple, allow_paths: tuple = ()) -> Game:
    return _cached(path, players, params, limits, allow_paths, _identity(path))


@lru_cache(maxsize=64)
def _cached(path: str, players: int, params: tuple, limits: tuple, allow_paths: tuple, _file: tuple) -> Game:
    return load(path, players=players, limits=dict(limits), allow_paths=allow_paths, **dict(params))


def _identity(path: str) -> tuple:
    """Which file a path names now (a relative path names another from another folder, and a file
    may be rewritten), so that a process that tests several files never reuses a stale game."""
    try:
        return os.path.realpath(path), os.stat(path).st_mtime_ns
    except (OSError, ValueError):
        return (path,)


def _load(path: str, players: int, params: tuple, allow_paths: tuple = ()) -> Game:
    return _load_with(path, players, params, (), allow_paths)


def scenario_settings(path: str | Path, allow_paths: Sequence[str | Path] = ()) -> list[ScenarioRt]:
    """The scenarios of a file (as compiled for its default setting: names, spans, settings)."""
    return list(load(path, allow_paths=allow_paths).scenarios)


def run_scenarios(path: str | Path, only: str | None = None,
                  allow_paths: Sequence[str | Path] = ()) -> list[ScenarioResult]:
    """Every scenario of a file (or the one named `only`). `allow_paths`: more folders its imports
    may read, as for `rulesdsl.load`."""
    base = load(path, allow_paths=allow_paths)
    results = []
    for i, sc in enumerate(base.scenarios):
        if only is not None and sc.name != only:
            continue
        results.append(run_scenario(path, i, allow_paths))
    return results


def run_scenario(path: str | Path, index: int, allow_paths: Sequence[str | Path] = ()) -> ScenarioResult:
    """Play scenario number `index` of a file and check what it expects."""
    base = _load(str(path), None, (), tuple(str(p) for p in allow_paths))  # (one load for all its scenarios)
    sc0 = base.scenarios[index]
    game = _load(str(path), sc0.players, tuple(sorted(sc0.params.items())), base.allow_paths)
    sc = game.scenarios[index]
    result = ScenarioResult(sc.name, sc.span)
    try:
        _play_scenario(game, sc)
    except Failure as f:
        result.failure = f
    return result


def _play_scenario(game: Game, sc: ScenarioRt) -> None:
    st = game.new_game(sc.seed)
    for step in sc.steps:
        try:
            _step(game, st, step)
        except Failure as f:
            if f.span is None:
                f.span = step.span
            raise
        except RulesRuntimeError as e:
            raise Failure(f"the rules failed: {e}", step.span) from None
        except (KeyError, ValueError, IllegalMove) as e:
            raise Failure(str(e)[1:-1] if isinstance(e, KeyError) else str(e), step.span) from None


def _moves_text(st: State) -> str:
    if st.is_over:
        return "the game is over"
    who = st.game.names[st.chooser]
    return f"{who} may: " + ", ".join(st.move_texts())


def _step(game: Game, st: State, step) -> None:
    kind = step.kind
    if kind in ("put", "put_top"):
        zi = step.data(st)
        owner = game.zone_owner[zi]
        spec = game.zone_spec_names[game.zone_spec[zi]]
        game.arrange(st, spec, list(step.texts), owner if owner >= 0 else None, top=kind == "put_top")
    elif kind == "turn":
        seat = step.data(st)
        if st.pending != 0:
            raise Failure(f"`turn` needs a turn's action to be pending, but {_moves_text(st)}")
        game.force_turn(st, seat)
    elif kind == "set":
        step.data(st)
        game.refresh_pending(st)
    elif kind == "play":
        for text in step.texts:
            if st.is_over:
                raise Failure(f"cannot play '{text}': the game is over")
            if normalize(text) not in [normalize(t) for t in st.move_texts()]:
                raise Failure(f"'{text}' is not a legal move: {_moves_text(st)}")
            st.apply(text)
    elif kind == "expect":
        test, explain = step.data
        if not test(st):
            detail = explain(st)
            raise Failure(f"expected {step.source}" + (f", but {detail}" if detail else ", but it is not so"))
    elif kind == "expect_illegal":
        text = step.texts[0]
        if normalize(text) in [normalize(t) for t in st.move_texts()]:
            raise Failure(f"expected '{text}' to be illegal, but it is a legal move ({_moves_text(st)})")
    elif kind == "expect_moves":
        want = sorted(normalize(t) for t in step.texts)
        got = sorted(normalize(t) for t in st.move_texts())
        if want != got:
            raise Failure(f"expected the moves {list(step.texts)}, but {_moves_text(st)}")


# ---------------------------------------------------------------- generated games


def _base(path: str, players: int | None, fixed: dict, limits: dict | None, allow_paths: Sequence) -> Game:
    """The game as set up by the caller, through the cache of loads when the setting can be a key
    (the pytest plugin has loaded it already to collect the file's scenarios)."""
    key, limited = tuple(sorted(fixed.items())), tuple(sorted((limits or {}).items()))
    try:
        hash((key, limited))
    except TypeError:
        return load(path, players=players, limits=limits, allow_paths=allow_paths, **fixed)
    return _load_with(path, players, key, limited, tuple(str(p) for p in allow_paths))


def _param_strategies(game: Game):
    from hypothesis import strategies as hs

    out = {}
    for name, (default, low, high) in game.param_ranges.items():
        if isinstance(default, bool):
            out[name] = hs.booleans()
        elif isinstance(default, int) and low is not None:
            out[name] = hs.integers(low, high)
    return out


def check_properties(path: str | Path, games: int | None = None, seed: int | None = None, profile: str = "ci",
                     max_moves: int = DEFAULT_MAX_MOVES, progress: Callable[[int], None] | None = None,
                     shrink_seconds: float = 30.0, players: int | None = None,
                     params: dict | None = None, limits: dict | None = None,
                     allow_paths: Sequence[str | Path] = ()) -> PropertyResult:
    """Have hypothesis generate games (players, parameters, seed, every choice) and check, after
    every move, the game's invariants and the engine's promises; at the end of a game, that it
    replays exactly from its seed and moves. A failure is shrunk to a short game. `allow_paths`:
    more folders the file's imports may read, as for `rulesdsl.load`."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as hs

    path = str(path)
    fixed = dict(params or {})
    base = _base(path, players, fixed, limits, allow_paths)  # checks the fixed setting
    fixed = {k: base.params[k] for k in fixed}  # as the game's types ("2" -> 2)
    examples = games if games is not None else PROFILES.get(profile, PROFILES["ci"])
    params_st = {k: s for k, s in _param_strategies(base).items() if k not in fixed}
    last: dict = {}
    counts = {"games": 0, "moves": 0}
    limited = tuple(sorted((limits or {}).items()))

    def _load(path: str, players: int, params: tuple) -> Game:
        # (The generated games' function keeps its source, which seeds hypothesis's examples.)
        return _load_with(path, players, params, limited, base.allow_paths)

    @settings(max_examples=examples, deadline=None, database=None, verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
              derandomize=seed is None)
    @given(data=hs.data())
    def one_game(data):
        # Shrinking replays games again and again; a game that never ends makes each try long.
        # Past the budget, further tries are rejected and the shortest failure so far stands.
        if "since" in last and time.monotonic() - last["since"] > shrink_seconds:
            reject()
        n = players if players is not None else data.draw(hs.integers(base.min_players, base.max_players),
                                                          label="players")
        params = {name: data.draw(s, label=name) for name, s in params_st.items()} | fixed
        game_seed = data.draw(hs.integers(0, 2**32 - 1), label="seed")
        game = _load(path, n, tuple(sorted(params.items())))
        transcript = Transcript(path, n, params, game_seed, [], max_moves=max_moves)
        last["transcript"] = transcript
        try:
            moves = _generated_game(game, game_seed, transcript, data, max_moves)
        except Failure as f:
            transcript.failure = str(f)
            best = last.get("best")
            if best is None or len(transcript.moves) <= len(best[1].moves):
                last["best"] = (f, transcript)
            last.setdefault("since", time.monotonic())
            raise
        counts["games"] += 1
        counts["moves"] += moves
        if progress is not None:
            progress(counts["games"])

    if seed is not None:
        one_game = hseed(seed)(one_game)
    try:
        one_game()
    except Exception:  # a Failure, or hypothesis giving up on a budget-cut shrink
        if "best" not in last:
            raise
        failure, transcript = last["best"]
        return PropertyResult(counts["games"], counts["moves"], failure, transcript)
    return PropertyResult(counts["games"], counts["moves"])


def _generated_game(game: Game, seed: int, transcript: Transcript, data, max_moves: int) -> int:
    from hypothesis import strategies as hs

    try:
        st = game.new_game(seed, log=False)  # the log is the CLI's; the engine tests cover it
    except RulesRuntimeError as e:
        raise Failure(f"the rules failed while setting up: {e}") from None
    _check_now(st, transcript)
    indices: list[int] = []
    choices = _Choices(data, random.Random(data.draw(hs.integers(0, 2**32 - 1), label="later moves")), hs.integers)
    while not st.is_over:
        if len(indices) >= max_moves:
            raise Failure(f"the game did not end within {max_moves} moves")
        n = st.num_moves()
        i = choices.pick(n)
        text = st.move_texts()[i]
        transcript.moves.append(text)
        indices.append(i)
        try:
            st.apply_index(i)
        except RulesRuntimeError as e:
            raise Failure(f"the rules failed at move {len(indices)} ('{text}'): {e}") from None
        _check_now(st, transcript)
        if len(indices) % 37 == 1:
            _check_copies(st, transcript, random.Random(len(indices)))
    choices.draw_unused()
    # Replay: the same seed and moves give the same game.
    again = game.new_game(seed, log=False)
    for i in indices:
        again.apply_index(i)
    if _core(again) != _core(st):
        raise Failure("replaying the same seed and moves gave a different game")
    return len(indices)


class _Choices:
    """A generated game's choices: hypothesis's draws for its first DRAWN_MOVES decisions (even one
    of a single move, so that a shrink that changes the moves keeps the draws in step with the
    decisions), then the seeded generator's."""

    def __init__(self, data, later: random.Random, integers):
        self.data, self.later, self.integers, self.drawn = data, later, integers, 0  # (integers: hypothesis's)

    def pick(self, n: int) -> int:
        if self.drawn >= DRAWN_MOVES:
            return self.later.randrange(n) if n > 1 else 0
        self.drawn += 1
        return self.data.draw(self.integers(0, n - 1))

    def draw_unused(self) -> None:
        """At the end of a game, the draws it did not use (see DRAWN_MOVES)."""
        while self.drawn < DRAWN_MOVES:
            self.drawn += 1
            self.data.draw(self.integers(0, 1))


def _check_now(st: State, transcript: Transcript) -> None:
    problem = invariant_problems(st)
    if problem is not None:
        if transcript.moves:
            problem.message += f" (after move {len(transcript.moves)}, '{transcript.moves[-1]}')"
        else:
            problem.message += " (after setup)"
        raise problem


def _core(st: State) -> str:
    data = json.loads(st.to_json())
    data.pop("log", None)
    return json.dumps(data, sort_keys=True)


def _check_copies(st: State, transcript: Transcript, rng: random.Random) -> None:
    """A saved and reloaded state is the same state; a seat cannot tell apart worlds that differ
    only in cards it does not know."""
    text = st.to_json()
    try:
        back = st.game.state_from_json(text)
    except ValueError as e:  # the save's checks refuse a state the engine made
        raise Failure(f"the state after move {len(transcript.moves)} does not load back: {e}") from None
    if back.to_json() != text:
        raise Failure(f"saving and loading the state after move {len(transcript.moves)} changed it")
    if st.is_over:
        return
    p = st.chooser
    other = st.determinize(p, rng)
    if other.view(p) != st.view(p) or other.move_texts() != st.move_texts():
        raise Failure(f"{st.game.names[p]}'s view or moves after move {len(transcript.moves)} depend on cards "
                      f"{st.game.names[p]} does not know")


# ---------------------------------------------------------------- replay


def replay(transcript: Transcript, path: str | Path | None = None, limits: dict | None = None,
           allow_paths: Sequence[str | Path] = ()) -> Iterator[tuple[State, str | None]]:
    """Play a transcript back: yields the state before each move with the move, then the final
    state with None. Raises Failure if a move is not legal or a check fails (as it did)."""
    game = load(path or transcript.file, players=transcript.players, limits=limits, allow_paths=allow_paths,
                **transcript.params)
    st = game.new_game(transcript.seed, log=False)
    problem = invariant_problems(st)
    if problem is not None:
        problem.message += " (after setup)"
        raise problem
    for k, text in enumerate(transcript.moves, 1):
        yield st, text
        if st.is_over or normalize(text) not in [normalize(t) for t in st.move_texts()]:
            raise Failure(f"the transcript does not fit these rules: move {k}, '{text}', is not legal here: "
                          f"{_moves_text(st)}")
        try:
            st.apply(text)
        except RulesRuntimeError as e:
            raise Failure(f"the rules failed at move {k} ('{text}'): {e}") from None
        problem = invariant_problems(st)
        if problem is not None:
            problem.message += f" (after move {k}, '{text}')"
            raise problem
        if k % 37 == 1:  # the same moves as the generated games check
            _check_copies(st, transcript, random.Random(k))
    if not st.is_over and len(transcript.moves) >= transcript.max_moves:
        yield st, None
        raise Failure(f"the game did not end within {transcript.max_moves} moves")
    yield st, None
