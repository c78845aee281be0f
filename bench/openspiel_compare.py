"""Random play of Crazy Eights, Go Fish and Goofspiel in rulesdsl and in OpenSpiel, side by side.

Why: `games/crazy_eights.rules`, `games/go_fish.rules` and `games/goofspiel.rules` are written
from OpenSpiel's source;
if both engines play the same game, uniformly random play gives the same distributions of game
length and returns, within sampling error. Each metric gets Welch's test of means and a
two-sample Kolmogorov-Smirnov test of distributions (a chi-square test too for the few-valued
ones). OpenSpiel (`pip install -e '.[openspiel]'`) is needed only here, never by rulesdsl.

    python bench/openspiel_compare.py --games 5000
    python bench/openspiel_compare.py --game go_fish --games 1000 --markdown
    python bench/openspiel_compare.py --game goofspiel --players 3 --games 5000
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import rulesdsl
from rulesdsl.compare import mean_sd, welch_p

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("crazy_eights", "go_fish", "goofspiel", "hanabi", "dou_dizhu", "oh_hell")
OWN_MODULE = ("oh_hell",)    # games compared by their own module, bench/openspiel_<game>.py
Metrics = dict[str, float]


# ---------------------------------------------------------------- statistics

def ks_2samp(a: list[float], b: list[float]) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov statistic D and its asymptotic two-sided p-value.

    Ties are handled by comparing the two empirical CDFs only after each distinct value, which
    makes the test conservative (p too large) for discrete data rather than wrong."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return 0.0, 1.0
    ca, cb = Counter(a), Counter(b)
    fa = fb = 0.0
    d = 0.0
    for x in sorted(set(ca) | set(cb)):
        fa += ca[x] / n
        fb += cb[x] / m
        d = max(d, abs(fa - fb))
    en = math.sqrt(n * m / (n + m))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 0.2:
        return d, 1.0
    p = 2 * sum((-1) ** (j - 1) * math.exp(-2 * j * j * lam * lam) for j in range(1, 101))
    return d, min(1.0, max(0.0, p))


def _gamma_q(s: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(s, x) (series below s+1, else a
    continued fraction, each to double precision)."""
    if x <= 0:
        return 1.0
    log_front = s * math.log(x) - x - math.lgamma(s)
    if x < s + 1:
        term = total = 1.0 / s
        k = s
        while abs(term) > abs(total) * 1e-15:
            k += 1
            term *= x / k
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - s
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - s)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi2_2samp(a: list[float], b: list[float]) -> float:
    """p-value of a chi-square test that two samples of a few-valued metric come from one
    distribution (values with fewer than 10 observations in all are pooled together)."""
    ca, cb = Counter(a), Counter(b)
    cells: list[tuple[int, int]] = []
    rest = [0, 0]
    for x in sorted(set(ca) | set(cb)):
        if ca[x] + cb[x] < 10:
            rest[0] += ca[x]
            rest[1] += cb[x]
        else:
            cells.append((ca[x], cb[x]))
    if sum(rest):
        cells.append((rest[0], rest[1]))
    if len(cells) < 2:
        return 1.0
    n, m = len(a), len(b)
    stat = 0.0
    for x, y in cells:
        tot = x + y
        ex, ey = tot * n / (n + m), tot * m / (n + m)
        stat += (x - ex) ** 2 / ex + (y - ey) ** 2 / ey
    return _gamma_q((len(cells) - 1) / 2, stat / 2)


# ---------------------------------------------------------------- the two engines

@dataclass
class Run:
    """Per-game metrics of one engine, and how fast it played."""

    engine: str
    metrics: dict[str, list[float]] = field(default_factory=dict)
    decisions: int = 0
    actions: int = 0          # decisions plus OpenSpiel's explicit chance moves
    seconds: float = 0.0

    def add(self, m: Metrics) -> None:
        for k, v in m.items():
            self.metrics.setdefault(k, []).append(v)

    def merge(self, other: Run) -> None:
        for k, vs in other.metrics.items():
            self.metrics.setdefault(k, []).extend(vs)
        self.decisions += other.decisions
        self.actions += other.actions
        self.seconds += other.seconds


def win_loss_returns(scores: list[int]) -> list[float]:
    """OpenSpiel's win/loss returns of go_fish (scores: books) and goofspiel (points): the highest
    share +1, the others share -1 (all tied: a draw, 0 each)."""
    best = max(scores)
    winners = scores.count(best)
    if winners == len(scores):
        return [0.0] * len(scores)
    return [1 / winners if b == best else -1 / (len(scores) - winners) for b in scores]


def crazy_eights_metrics_rulesdsl(st: rulesdsl.State, moves: int, turn_decisions: int) -> Metrics:
    players = st.game.players
    discard = st.zone("discard")
    went_out = any(not st.zone("hand", player=p) for p in range(players))
    hand_size = 7 if players == 2 else 5
    plays = len(discard) - 1                                   # the starter was not played
    draws = 52 - hand_size * players - 1 - len(st.zone("deck"))
    eights = sum(1 for c in discard if c.startswith("8"))
    suits = eights - (1 if went_out and discard[-1].startswith("8") else 0)  # no suit after going out
    penalties = [st.counter("penalty", p) for p in range(players)]
    return {"decisions": moves, "card plays": plays, "draws": draws, "passes": moves - plays - draws - suits,
            "suit choices": suits, "went out": float(went_out), "return of seat 0": -penalties[0],
            "sum of returns": -sum(penalties)}


def crazy_eights_metrics_openspiel(st, counts: Counter) -> Metrics:
    returns = st.returns()
    went_out = counts["last"] < 52     # the game ended on a card play, not on a run of passes
    return {"decisions": counts["decisions"], "card plays": counts["play"], "draws": counts["draw"],
            "passes": counts["pass"], "suit choices": counts["suit"], "went out": float(went_out),
            "return of seat 0": returns[0], "sum of returns": sum(returns)}


def go_fish_metrics_rulesdsl(st: rulesdsl.State, moves: int, asks: int) -> Metrics:
    # an ask is one OpenSpiel action (target and rank); here, with several players to ask, the
    # rank is the turn's move and the player a second question: compare asks, not moves
    books = [st.counter("books", p) for p in range(st.game.players)]
    return {"asks": asks, "books of seat 0": books[0],
            "return of seat 0": win_loss_returns(books)[0]}


def go_fish_metrics_openspiel(st, counts: Counter) -> Metrics:
    # OpenSpiel's state text: phase, current player, then "cards:books" for each player
    lines = str(st).split("\n")
    books = [int(line.rsplit(":", 1)[1]) for line in lines[2:2 + st.num_players()]]
    return {"asks": counts["decisions"], "books of seat 0": books[0],
            "return of seat 0": st.returns()[0]}


def goofspiel_metrics(points: list[int], turns: int, bids: int, prize_total: int) -> Metrics:
    """The issue's three (drawn games, seat 0's wins, turns), and what they come from."""
    returns = win_loss_returns(points)
    return {"turns": turns, "bids": bids, "drawn": float(len(set(points)) == 1),
            "seat 0 wins": float(returns[0] > 0), "return of seat 0": returns[0],
            "points of seat 0": points[0], "points discarded (ties)": prize_total - sum(points)}


def goofspiel_metrics_rulesdsl(st: rulesdsl.State, moves: int, turn_decisions: int) -> Metrics:
    # a turn is one prize, turned up by the turn itself (the game has no action): every decision
    # is a bid, as in OpenSpiel
    points = [st.counter("points", p) for p in range(st.game.players)]
    cards = st.game.params["num_cards"]
    assert turn_decisions == 0, "Goofspiel's turns have no action"
    return goofspiel_metrics(points, st.turn, moves, cards * (cards + 1) // 2)


def play_openspiel_goofspiel(games: int, rng: random.Random, players: int | None) -> Run:
    """Goofspiel is simultaneous: each seat's action at a bidding node is drawn uniformly and on
    its own (a decision each); the prize turned up is a chance move. OpenSpiel plays the last
    prize itself, without a node: a turn is one prize of the points card sequence."""
    import pyspiel

    game = pyspiel.load_game("goofspiel", {"players": players} if players else {})
    n = game.num_players()
    cards = game.get_parameters()["num_cards"]
    run = Run("OpenSpiel")
    for _ in range(games):
        bids = chance = 0
        t0 = time.perf_counter()
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(rng.choices(outcomes, probs)[0])
                chance += 1
            else:
                joint = []
                for p in range(n):
                    legal = st.legal_actions(p)
                    joint.append(legal[rng.randrange(len(legal))])
                st.apply_actions(joint)
                bids += n
        run.seconds += time.perf_counter() - t0
        run.decisions += bids
        run.actions += bids + chance
        # OpenSpiel's state text: each hand, the points card sequence, then "Points: a b ..."
        lines = str(st).split("\n")
        sequence = next(line for line in lines if line.startswith("Point card sequence:")).split(":")[1].split()
        points = [int(x) for x in lines[-2].split(":")[1].split()]
        run.add(goofspiel_metrics(points, len(sequence), bids, cards * (cards + 1) // 2))
    return run


def _own(name: str):
    """A game whose comparison is its own module, bench/openspiel_NAME.py (bench/ is no package)."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    return importlib.import_module(f"openspiel_{name}")


def play_rulesdsl(name: str, games: int, seed: int, players: int | None, start: int = 0) -> Run:
    """Games number start .. start+games-1 of this seed, each from its own engine seed."""
    if name == "hanabi":
        return _own("hanabi").play_rulesdsl(games, seed, players, start)
    if name == "dou_dizhu":  # (its own module: bench/openspiel_dou_dizhu.py)
        return _own("dou_dizhu").play_rulesdsl(games, seed, start)
    game = rulesdsl.load(str(ROOT / "games" / f"{name}.rules"), players=players)
    measure = {"crazy_eights": crazy_eights_metrics_rulesdsl, "go_fish": go_fish_metrics_rulesdsl,
               "goofspiel": goofspiel_metrics_rulesdsl}[name]
    stock = game.zone_index("prizes" if name == "goofspiel" else "deck")
    asks_only = name == "go_fish"      # OpenSpiel's ask is one action; count asks, not questions
    rng = random.Random(seed * 1_000_003 + start)
    run = Run("rulesdsl")
    for i in range(start, start + games):
        t0 = time.perf_counter()
        st = game.new_game(seed=seed * 1_000_003 + i, log=False)
        moves = changes = dry = turn_decisions = 0
        last = None
        while not st.is_over:
            turn = st.pending == 0         # the turn's decision (in Go Fish, an ask), not a later question
            turn_decisions += turn
            if st.chooser != last:
                changes += 1
                last = st.chooser
            if not st.zones[stock] and (turn or not asks_only):
                dry += 1
            st.apply_index(rng.randrange(st.num_moves()))
            moves += 1
        run.seconds += time.perf_counter() - t0
        run.decisions += moves
        run.actions += moves
        shared = {} if name == "goofspiel" else {"decider changes": changes, "decisions, stock empty": dry}
        run.add(measure(st, moves, turn_decisions) | shared)
    return run


def play_openspiel(name: str, games: int, seed: int, players: int | None, start: int = 0) -> Run:
    import pyspiel

    if name == "hanabi":
        return _own("hanabi").play_openspiel(games, seed, players, start)
    if name == "dou_dizhu":
        return _own("dou_dizhu").play_openspiel(games, seed, start)
    rng = random.Random(seed * 1_000_003 + start + 500_000)
    if name == "goofspiel":
        return play_openspiel_goofspiel(games, rng, players)
    game = pyspiel.load_game(name, {"players": players} if players else {})
    run = Run("OpenSpiel")
    c8 = name == "crazy_eights"
    n = game.num_players()
    # the stock: after the deal and the starter in crazy_eights (a redrawn 8 goes back), and
    # every card in go_fish, where each card that leaves the pool is a chance move
    full_stock = 52 - (7 if n == 2 else 5) * n - 1 if c8 else 52
    for _ in range(games):
        counts: Counter = Counter()
        stock = full_stock
        last = None
        t0 = time.perf_counter()
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes(), strict=True)
                a = rng.choices(outcomes, probs)[0]
                counts["chance"] += 1
                if not c8:
                    stock -= 1
            else:
                legal = st.legal_actions()
                a = legal[rng.randrange(len(legal))]
                counts["decisions"] += 1
                player = st.current_player()
                if player != last:
                    counts["changes"] += 1
                    last = player
                if stock == 0:
                    counts["dry"] += 1
                if c8:    # 0-51 play a card, 52 draw, 53 pass, 54-57 name a suit
                    counts["play" if a < 52 else "draw" if a == 52 else "pass" if a == 53 else "suit"] += 1
                    counts["last"] = a
                    if a == 52:
                        stock -= 1
            st.apply_action(a)
        run.seconds += time.perf_counter() - t0
        run.decisions += counts["decisions"]
        run.actions += counts["decisions"] + counts["chance"]
        measure = crazy_eights_metrics_openspiel if c8 else go_fish_metrics_openspiel
        run.add(measure(st, counts) | {"decider changes": counts["changes"], "decisions, stock empty": counts["dry"]})
    return run


# ---------------------------------------------------------------- the report

@dataclass
class Row:
    metric: str
    mean_a: float
    mean_b: float
    welch: float
    ks: float
    chi2: float | None


def compare(a: Run, b: Run) -> list[Row]:
    rows = []
    for k, xs in a.metrics.items():
        ys = b.metrics[k]
        few = len(set(xs) | set(ys)) <= 30
        rows.append(Row(k, mean_sd(xs)[0], mean_sd(ys)[0], welch_p(xs, ys), ks_2samp(xs, ys)[1],
                        chi2_2samp(xs, ys) if few else None))
    return rows


def report(name: str, a: Run, b: Run, rows: list[Row], markdown: bool, out: Callable[[str], None]) -> None:
    n = len(next(iter(a.metrics.values())))
    if markdown:
        out(f"\n**{name}** ({n} games each)\n")
        out("| metric | rulesdsl mean | OpenSpiel mean | Welch p | KS p | chi-square p |")
        out("|---|---:|---:|---:|---:|---:|")
        for r in rows:
            chi = "" if r.chi2 is None else f"{r.chi2:.3f}"
            out(f"| {r.metric} | {r.mean_a:.3f} | {r.mean_b:.3f} | {r.welch:.3f} | {r.ks:.3f} | {chi} |")
        out("")
        for run in (a, b):
            out(f"- {run.engine}: {run.decisions / run.seconds:,.0f} decisions/s"
                f" ({run.actions / run.seconds:,.0f} actions/s with chance moves),"
                f" {n / run.seconds:,.0f} games/s")
        return
    out(f"{name}: {n} games each")
    out(f"  {'metric':<24} {'rulesdsl':>10} {'OpenSpiel':>10} {'Welch p':>8} {'KS p':>8} {'chi2 p':>8}")
    for r in rows:
        chi = "" if r.chi2 is None else f"{r.chi2:.3f}"
        out(f"  {r.metric:<24} {r.mean_a:>10.3f} {r.mean_b:>10.3f} {r.welch:>8.3f} {r.ks:>8.3f} {chi:>8}")
    for run in (a, b):
        out(f"  {run.engine:<10} {run.decisions / run.seconds:>10,.0f} decisions/s"
            f"  {run.actions / run.seconds:>10,.0f} actions/s  {n / run.seconds:>8,.0f} games/s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=5000, help="games per engine and game (default 5000)")
    ap.add_argument("--game", choices=(*GAMES, "both"), default="both")
    ap.add_argument("--players", type=int, default=None, help="players (default: each game's default)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--block", type=int, default=250, help="games played by one engine before the other's turn")
    ap.add_argument("--markdown", action="store_true", help="print tables for bench/RESULTS.md")
    args = ap.parse_args(argv)
    if args.games < 2 or args.block < 1:
        ap.error("--games must be at least 2 and --block at least 1")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("error: OpenSpiel is not installed (pip install -e '.[openspiel]')", file=sys.stderr)
        return 1
    worst = 1.0
    tests = 0
    for name in GAMES if args.game == "both" else (args.game,):
        a, b = Run("rulesdsl"), Run("OpenSpiel")
        own = importlib.import_module(f"openspiel_{name}") if name in OWN_MODULE else None
        plays = (own.play_rulesdsl, own.play_openspiel) if own else (play_rulesdsl, play_openspiel)
        # blocks of games in turn, so that a busy moment of the machine slows both engines
        for start in range(0, args.games, args.block):
            n = min(args.block, args.games - start)
            a.merge(plays[0](name, n, args.seed, args.players, start))
            b.merge(plays[1](name, n, args.seed, args.players, start))
        rows = compare(a, b)
        report(name, a, b, rows, args.markdown, print)
        for r in rows:
            ps = [r.welch, r.ks] + ([r.chi2] if r.chi2 is not None else [])
            worst = min(worst, *ps)
            tests += len(ps)
    print(f"\nsmallest p-value {worst:.4f} of {tests} tests"
          f" (Bonferroni threshold at 5%: {0.05 / tests:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
