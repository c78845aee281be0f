"""The speed of rulesdsl, measured: random play against hand-written Python, and the other costs.

    python bench/run.py [--quick] [--repeats R] [--out FILE | --no-write]

For each seed game at 4 players it measures:

- random play: moves per second of the engine (`State.playout` with a `random.Random`'s
  randrange per game, as `rulesdsl simulate`'s random bots and the search bots' rollouts play)
  and of the hand-written baseline (bench/baseline_*.py, the same rules and decisions), on the
  same seeds and number of games, best of R repeats taken in turn; their ratio (1.0 = as fast as
  hand-written Python; the first plan's target was 0.5, "within 2x", against the slower baselines
  that issue 19 replaced, RESULTS.md); and the engine again with one
  `num_moves()` / `apply_index()` call a move (what a bot that looks at every state pays); and
  the median of the repeats' own ratios (engine and baseline run one after the other), which a
  busy moment of a shared machine moves less than the ratio of two bests;
- `clone()`s per second and `legal_moves()` calls per second (each on a state not asked before,
  as a bot meets them), on mid-game states;
- the size of a mid-game state: `to_json()` bytes (without and with the event log), its data
  pickled, and its deep `sys.getsizeof` (target < 20 KB);
- the load time of the rules file (parse, then check and compile), warm, best of R;

(each timing in CPU time of this process, which a busy machine disturbs less than wall time) and,
once: the wall time of `rulesdsl check games/tamalo.rules` in a new process, start-up
included (best of several; target < 0.5 s), and `rulesdsl.simulate` with one worker and with
every core. It prints a table and writes it into bench/RESULTS.md between the markers below,
keeping whatever is written outside them (the hand-written Profile section). `--quick` plays a few
games once and writes nothing unless `--out` is given: for the test that keeps this script working.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pickle
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import baseline_tamalo  # noqa: E402
import baseline_tempurra  # noqa: E402
import validate  # noqa: E402

import rulesdsl  # noqa: E402
from rulesdsl.engine.state import State  # noqa: E402
from rulesdsl.parallel import default_workers  # noqa: E402
from rulesdsl.simulate import simulate  # noqa: E402

BEGIN = "<!-- bench/run.py: generated from here; edits inside are overwritten -->"
END = "<!-- bench/run.py: generated up to here -->"
PLAYERS = 4
# name: (baseline module, games per repeat, quick games, moves into a game for a "mid-game" state)
GAMES = {
    "tempurra": (baseline_tempurra, 300, 10, 60),
    "tamalo": (baseline_tamalo, 1500, 30, 30),
}


def best(f, repeats: int) -> float:
    """The smallest of `repeats` timings of f(), in seconds of this process's CPU time: on a shared
    machine, wall time also counts the time other processes had the core; CPU time does not."""
    out = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        f()
        out = min(out, time.process_time() - t0)
    return out


def engine_play(game: rulesdsl.Game, seeds: range) -> int:
    """Random play through the engine's playout (`State.playout`, as `rulesdsl simulate`'s random
    bots and the search bots' rollouts play): `rng.randrange(n)` at every decision; the moves made."""
    moves = 0
    for s in seeds:
        rng = random.Random(s)
        st = game.new_game(s, log=False)
        st.playout(rng.randrange)
        moves += st.moves
    return moves


def engine_step(game: rulesdsl.Game, seeds: range) -> int:
    """The same moves, one call into the state per move (`num_moves()` / `apply_index()`, as a bot
    that looks at every state plays them); the moves made."""
    moves = 0
    for s in seeds:
        rng = random.Random(s)
        st = game.new_game(s, log=False)
        while not st.over:
            st.apply_index(rng.randrange(st.num_moves()))
        moves += st.moves
    return moves


def baseline_play(module, seeds: range) -> int:
    return sum(module.play_game(s, PLAYERS)[0] for s in seeds)


def mid_game_states(game: rulesdsl.Game, at: int, count: int, log: bool = False) -> list[State]:
    """States `at` moves into random games (the first that last that long), one per seed."""
    out = []
    seed = 0
    while len(out) < count:
        rng = random.Random(seed)
        st = game.new_game(seed, log=log)
        while not st.over and st.moves < at:
            st.apply_index(rng.randrange(st.num_moves()))
        if not st.over:
            out.append(st)
        seed += 1
    return out


def decision_states(game: rulesdsl.Game, count: int) -> list[State]:
    """Copies of the states met in random games, each not yet asked for its moves' texts."""
    out: list[State] = []
    seed = 0
    while len(out) < count:
        rng = random.Random(seed)
        st = game.new_game(seed, log=False)
        while not st.over and len(out) < count:
            out.append(st.clone())
            st.apply_index(rng.randrange(st.num_moves()))
        seed += 1
    return out


def state_data(st: State) -> dict:
    """What a state holds besides its game (the game is shared, and does not pickle)."""
    return {k: getattr(st, k) for k in State.__slots__ if k != "game"}


def deep_sizeof(obj, seen: set | None = None) -> int:
    """sys.getsizeof of obj and of everything it holds, each object once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_sizeof(k, seen) + deep_sizeof(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_sizeof(x, seen) for x in obj)
    return size


def measure_game(name: str, repeats: int, quick: bool) -> dict:
    module, n_games, n_quick, at = GAMES[name]
    path = ROOT / "games" / f"{name}.rules"
    n = n_quick if quick else n_games
    seeds = range(n)
    r: dict = {"game": name, "games": n}

    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program

    rulesdsl.parse_files(path)  # the parser is built once per process; this measures a file's own cost
    r["parse_s"] = best(lambda: rulesdsl.parse_files(path), repeats)
    files = rulesdsl.parse_files(path)
    r["check_s"] = best(lambda: compile_program(check(files, PLAYERS, {})), repeats)
    game = rulesdsl.load(path, players=PLAYERS)

    moves_e = engine_play(game, seeds)
    moves_b = baseline_play(module, seeds)
    if engine_step(game, seeds) != moves_e:
        raise SystemExit(f"{name}: playout() and an apply_index() loop played different games")
    te = tb = ts = float("inf")
    pairs = []
    for _ in range(repeats):  # in turn, so a busy moment of the machine hits all sides alike
        e = best(lambda: engine_play(game, seeds), 1)
        b = best(lambda: baseline_play(module, seeds), 1)
        te, tb = min(te, e), min(tb, b)
        ts = min(ts, best(lambda: engine_step(game, seeds), 1))
        pairs.append((moves_e / e) / (moves_b / b))
    r.update(engine_moves=moves_e, baseline_moves=moves_b, engine_mps=moves_e / te, baseline_mps=moves_b / tb,
             step_mps=moves_e / ts)
    r["ratio"] = r["engine_mps"] / r["baseline_mps"]
    # Each repeat's engine and baseline ran one after the other, in the same moment of the
    # machine: the median of their ratios is another estimate, steadier on a shared machine.
    r["pair_ratio"] = statistics.median(pairs)

    mids = mid_game_states(game, at, 5 if quick else 50)
    rounds = 20 if quick else 400
    def clones() -> None:
        for st in mids:  # each copy dropped at once, as a search drops a line it played out
            for _ in range(rounds):
                st.clone()

    t = best(clones, repeats)
    r["clones_per_s"] = len(mids) * rounds / t
    asked = decision_states(game, 50 if quick else 5000)
    batches = [[s.clone() for s in asked] for _ in range(repeats)]
    t = min(best(lambda b=b: [s.legal_moves() for s in b], 1) for b in batches)
    r["legal_moves_per_s"] = len(asked) / t

    st = mids[0]
    r["mid_moves"] = at
    r["json_bytes"] = len(st.to_json())
    r["json_log_bytes"] = len(mid_game_states(game, at, 1, log=True)[0].to_json())
    r["pickle_bytes"] = len(pickle.dumps(state_data(st), protocol=pickle.HIGHEST_PROTOCOL))
    r["sizeof_bytes"] = deep_sizeof(state_data(st))
    return r


def child_times(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=BYTECODE_ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


# Start-up as after an install: bytecode written once and read after. (A tree whose environment
# sets PYTHONDONTWRITEBYTECODE would compile every changed module at every start instead.) The
# bytecode goes to a directory of its own, not into the tree.
BYTECODE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
BYTECODE_ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "rulesdsl-bench-pycache")


def check_wall(repeats: int) -> dict:
    """`rulesdsl check games/tamalo.rules` in a new process, start-up included: the best wall time
    and the best CPU time of `repeats` runs (after one that writes the bytecode), through the
    installed command and as `python -m rulesdsl.cli` (without the launcher), and a bare
    interpreter for scale."""
    cmds = {"python -m rulesdsl.cli": [sys.executable, "-m", "rulesdsl.cli", "check", "games/tamalo.rules"]}
    exe = shutil.which("rulesdsl")
    if exe:
        cmds = {"rulesdsl": [exe, "check", "games/tamalo.rules"], **cmds}
    cmds["python -c pass"] = [sys.executable, "-c", "pass"]
    out = {}
    for label, cmd in cmds.items():
        child_times(cmd)  # writes the bytecode
        runs = [child_times(cmd) for _ in range(repeats)]
        out[label] = (min(w for w, _ in runs), min(c for _, c in runs))
    return out


def scaling(games: int, repeats: int) -> dict:
    """rulesdsl.simulate on Tempurra with one worker and with every core: the same records, faster."""
    game = rulesdsl.load(ROOT / "games" / "tempurra.rules", players=PLAYERS)
    workers = default_workers()
    out = {"workers": workers, "games": games}
    for label, w in (("one", 1), ("all", workers)):
        stats = None
        secs = float("inf")
        for _ in range(repeats):
            s = simulate(game, games, 0, workers=w)
            if s.seconds < secs:
                stats, secs = s, s.seconds
        out[label] = stats.moves / secs
    return out


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.2f} at the start"
    return (f"{cpu}, {os.cpu_count()} cores{load}; Python {platform.python_version()} on "
            f"{platform.system()} {platform.release()}")


def report(results: list[dict], wall: dict, scale: dict, argv: list[str], started: str, where: str) -> str:
    lines = [
        f"Command: `python bench/run.py{' ' + ' '.join(argv) if argv else ''}`, {started}.  ",
        f"Machine: {where}.",
        "",
        "Random play at 4 players, the same seeds and number of games on both sides, best of the repeats "
        "(CPU time of the process, here and in the next table):",
        "",
        "| game | games | engine moves/s (`playout`) | baseline moves/s | engine / baseline "
        "| median of the repeats' ratios | engine moves/s, one `apply_index` call a move | its ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r['game']} | {r['games']} | {r['engine_mps']:,.0f} | {r['baseline_mps']:,.0f} "
                     f"| {r['ratio']:.2f} | {r['pair_ratio']:.2f} | {r['step_mps']:,.0f} "
                     f"| {r['step_mps'] / r['baseline_mps']:.2f} |")
    lines += [
        "",
        "A mid-game state (4 players, the given number of moves into a random game):",
        "",
        "| game | clone()/s | legal_moves()/s | state JSON | JSON with log | pickled data | deep sizeof "
        "(target < 20 KB) | load: parse | load: check + compile |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['game']} (move {r['mid_moves']}) | {r['clones_per_s']:,.0f} | {r['legal_moves_per_s']:,.0f} "
            f"| {r['json_bytes'] / 1000:.1f} KB | {r['json_log_bytes'] / 1000:.1f} KB "
            f"| {r['pickle_bytes'] / 1000:.1f} KB | {r['sizeof_bytes'] / 1000:.1f} KB "
            f"| {r['parse_s'] * 1000:.0f} ms | {r['check_s'] * 1000:.0f} ms |")
    lines += [
        "",
        "`rulesdsl check games/tamalo.rules` in a new process, start-up included, bytecode cached as after "
        "an install (target < 0.5 s wall):",
        "",
    ]
    for label, (wall_s, cpu_s) in wall.items():
        what = "a bare interpreter, for scale" if label == "python -c pass" else "check games/tamalo.rules"
        lines.append(f"- `{label}` ({what}): {wall_s:.3f} s wall, {cpu_s:.3f} s CPU")
    lines += [
        "",
        f"`rulesdsl.simulate` on Tempurra, {scale['games']} games, random bots: "
        f"{scale['one']:,.0f} moves/s with one worker, {scale['all']:,.0f} moves/s with "
        f"{scale['workers']} (identical records; the speed-up is bounded by the cores other work leaves free).",
    ]
    return "\n".join(lines) + "\n"


def write(path: Path, generated: str) -> None:
    """Replace the text between the markers, keep the rest (a new file gets a Profile section)."""
    block = f"{BEGIN}\n\n{generated}\n{END}"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            tail = rest.split(END, 1)[1]
            path.write_text(head + block + tail, encoding="utf-8")
            return
        path.write_text(text.rstrip("\n") + "\n\n" + block + "\n", encoding="utf-8")
        return
    path.write_text(
        "# Benchmark results\n\nThe numbers below are written by `python bench/run.py`; "
        "see bench/README.md for what each one measures.\n\n"
        f"{block}\n\n## Profile\n\n(Hand-written: where the engine's time goes, and what was done about it.)\n",
        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few games, once: checks that the script works")
    ap.add_argument("--repeats", type=int, help="repeats of each timing (default 5, quick 1)")
    ap.add_argument("--out", type=Path, help="the results file (default bench/RESULTS.md; quick: none)")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 5)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = machine()
    results = []
    for name in GAMES:
        print(f"{name} ...", file=sys.stderr, flush=True)
        results.append(measure_game(name, repeats, args.quick))
    print("lockstep ...", file=sys.stderr, flush=True)
    lockstep = 10 if args.quick else 500
    same = lockstep - validate.lockstep_tamalo(lockstep, PLAYERS, 0)
    print("rulesdsl check ...", file=sys.stderr, flush=True)
    wall = check_wall(1 if args.quick else 10)
    print("simulate on every core ...", file=sys.stderr, flush=True)
    scale = scaling(20 if args.quick else 400, 1 if args.quick else 3)
    text = report(results, wall, scale, argv, started, where)
    text += (f"\nTamalo's baseline plays the engine's game: `python bench/validate.py --lockstep` replayed {same} "
             f"of {lockstep} games decision for decision. Tempurra's is checked by statistics "
             "(`python bench/validate.py`); see bench/README.md.\n")
    print(text)
    out = args.out if args.out is not None else (None if args.quick else HERE / "RESULTS.md")
    if out is not None and not args.no_write:
        write(out, text)
        print(f"written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
