"""Do the hand-written baselines play the same game as the engine? Compare their random play.

    python bench/validate.py [--games N] [--players P] [--seed S] [--stride K] [--only tempurra|tamalo]

Each side plays N games of random play at P players and, for every statistic, the two sides are
compared: Welch's test for means (moves, turns, rounds, moves per turn, tokens or points per
seat), a two-proportion test for win rates by seat and for shared wins, and a test of the number
of options of each decision (how many decisions had 1 option, 2, ...:
this one sees a wrong option set even when it changes no mean; it compares games, not decisions,
see `options_p`). The sides use different random generators, so they differ by chance only; a
p-value below 0.001 is a difference in the rules, not chance (with about fifteen tests per game,
one p-value below 0.05 in a run is expected now and then).

    python bench/validate.py --lockstep [--games N]

is exact rather than statistical, for Tamalo: the baseline replays each engine game with the
engine's deal, reshuffles and choices, and must ask the same decisions with the same numbers of
options (see `lockstep_tamalo`).

The tests assume independent games. Since generator version 2 (`rulesdsl/engine/rng.py`) a seed
is mixed before it starts the generator, so consecutive seeds give independent games
(tests/test_engine.py checks it); under version 1 seed s+1 started one step further along seed
s's sequence, and its deal was nearly the same. By default the engine plays seeds S, S+K, S+2K,
... (K = 1,000,003: kept from then; any step is as good now) with a random choice among the
options at each decision (`num_moves`, `apply_index`), as the random bots of `rulesdsl.simulate`
do, and counts the options; `--stride 1` plays seeds S..S+N-1 through
`rulesdsl.simulate.simulate`, as `rulesdsl simulate` does (then without the option counts).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import baseline_tamalo  # noqa: E402
import baseline_tempurra  # noqa: E402
import picks  # noqa: E402

import rulesdsl  # noqa: E402
from rulesdsl.compare import mean_sd, proportions_p, welch_p  # noqa: E402
from rulesdsl.simulate import simulate  # noqa: E402

STRIDE = 1_000_003


class Recorder:
    """Stands in for the baselines' `random.Random(seed)` (bench/picks.py) and counts their
    decisions by number of options k (and the first player's pick, with k = players). It draws
    what the generator would, so the games are those of the seed."""

    widths = picks.OPTIONS  # getrandbits is asked with the number of options itself

    def __init__(self, seed: int, hist: Counter):
        rng = random.Random(seed)
        self.randrange, self.shuffle = rng.randrange, rng.shuffle
        self.hist = hist
        self.known: list = []

    def watch(self, known: list) -> None:
        """The baseline's record of who knows the cards, read at the end of the game."""
        self.known = known

    def getrandbits(self, k: int) -> int:
        self.hist[k] += 1
        return self.randrange(k)


def engine_records(path: Path, games: int, players: int, seed: int, stride: int,
                   hists: list[Counter]) -> list[dict]:
    """The engine's games; each game's decisions by number of options are appended to `hists`."""
    game = rulesdsl.load(path, players=players)
    out = []
    if stride == 1:
        for r in simulate(game, games, seed).records:
            if r.capped:
                raise SystemExit(f"engine game with seed {r.seed} hit the move cap")
            out.append(_record(r.moves, r.turns, r.rounds, r.winners, game.read_counter, None, game))
        return out
    for i in range(games):
        s = seed + i * stride
        rng = random.Random(s)
        st = game.new_game(s, log=False)
        hist: Counter = Counter()
        hists.append(hist)
        while not st.over:
            k = st.num_moves()
            hist[k] += 1
            st.apply_index(rng.randrange(k))
        out.append(_record(st.moves, st.turn, st.round, st.winners, game.read_counter, st, game))
    return out


def _record(moves, turns, rounds, winners, read_counter, st, game) -> dict:
    name = "tokens" if "tokens" in game.counter_layout else "score"
    per_seat = None if st is None else sum(read_counter(st, name, p) for p in range(game.players)) / game.players
    return {"moves": moves, "turns": turns, "rounds": rounds, "per_turn": moves / max(1, turns),
            "winners": list(winners), "per_seat": per_seat, "shown": None if st is None else hands_shown(st, game)}


def hands_shown(st, game) -> float | None:
    """Tempurra: the cards in hands that everyone knows, per seat, at the end. The baseline keeps
    who knows a hand's card as counts (bench/baseline_tempurra.py), which holds only if each such
    card is known to its holder alone or to everyone: checked here on every engine game."""
    if "hand" not in game.zone_spec_names:
        return None
    everyone = (1 << game.players) - 1
    shown = 0
    for p in range(game.players):
        for c in st.zones[game.zone_index("hand", p)]:
            who = st.known[c] & everyone
            if who == everyone:
                shown += 1
            elif who != 1 << p:
                raise SystemExit(f"a card in seat {p + 1}'s hand is known to seats {who:b}: neither its "
                                 "holder alone nor everyone, which the baseline's counts cannot hold")
    return shown / game.players


def baseline_records(name: str, games: int, players: int, seed: int, hists: list[Counter]) -> list[dict]:
    out = []
    for s in range(seed, seed + games):
        hist: Counter = Counter()
        hists.append(hist)
        rng = Recorder(s, hist)
        if name == "tempurra":
            moves, turns, rounds, winners, tokens = baseline_tempurra.simulate_game(s, players, rng)
            per_seat = sum(tokens) / players
            hands, dealt = rng.known  # each hand's counts, and of those the dealt ones, known to its holder alone
            shown = (sum(map(sum, hands)) - sum(map(sum, dealt))) / players
        else:
            moves, turns, winners, scores, _ = baseline_tamalo.simulate_game(s, players, rng)
            rounds, per_seat, shown = 1, sum(scores) / players, None
        hist[players] -= 1  # the first player is chance, not a decision
        out.append({"moves": moves, "turns": turns, "rounds": rounds, "per_turn": moves / max(1, turns),
                    "winners": winners, "per_seat": per_seat, "shown": shown})
    return out


class Diverged(Exception):
    """The baseline asked something the engine did not, at the same point of the same game."""


class Replay:
    """Stands in for the baseline's `random.Random`: answers with what the engine did, and checks at
    each decision that the baseline's seats know the same cards as the engine's."""

    widths = picks.OPTIONS  # getrandbits is asked with the number of options itself (bench/picks.py)

    def __init__(self, events, everyone: int):
        self.events = events
        self.everyone = everyone
        self.known: list[int] = []

    def watch(self, known: list[int]) -> None:
        """The baseline's list of who knows each card, which it keeps up to date."""
        self.known = known

    def getrandbits(self, k: int) -> int:
        ev = next(self.events, ("end",))
        if ev[0] != "pick" or ev[1] != k:
            raise Diverged(f"the baseline asks a decision with {k} options; the engine: {ev[:2]}", ev)
        if ev[3] is not None:
            everyone = self.everyone
            for c, (mine, theirs) in enumerate(zip(self.known, ev[3].known, strict=True)):
                if mine != theirs & everyone:
                    raise Diverged(f"card {c} is known to seats {mine:b} in the baseline, "
                                   f"{theirs & everyone:b} in the engine", ev)
        return ev[2]

    def shuffle(self, cards: list) -> None:
        ev = next(self.events, ("end",))
        if ev[0] != "shuffle" or sorted(ev[1]) != sorted(cards):
            raise Diverged(f"the baseline shuffles {len(cards)} cards; the engine: {ev[:2]}", ev)
        cards[:] = ev[1]


def lockstep_tamalo(games: int, players: int, seed: int) -> int:
    """Play each engine game again in the baseline, move for move: the baseline gets the engine's
    deal, the engine's order after every reshuffle (M11) and the engine's choice at every decision,
    and must ask the same decisions with the same number of options, in the same order, with the
    same seats knowing each card at every decision, to the same end (moves, winners). Returns the
    number of games that diverged (the first few are printed with the engine's state). Unlike the
    statistics, this is exact: one game is enough to show a difference, and agreement on thousands
    of games leaves no room for one."""
    from rulesdsl.engine.state import State

    game = rulesdsl.load(ROOT / "games" / "tamalo.rules", players=players)
    deck, discard = game.zone_index("deck"), game.zone_index("discard")
    squares = [game.zone_index("square", p) for p in range(players)]
    ranks = ["A", *map(str, range(2, 11)), "J", "Q", "K"]
    if any(game.attrs["rank"][c] != ranks[c % 13] or (game.attrs["color"][c] == "black") != (c // 13 in (0, 3))
           for c in range(52)):
        raise SystemExit("the engine's cards are not numbered as the baseline's (rank + 13 * suit)")
    trace: list[tuple] | None = None
    shuffle_zone = State.shuffle_zone

    def recording_shuffle(st: State, zi: int) -> None:
        shuffle_zone(st, zi)
        if trace is not None and zi == deck:
            trace.append(("shuffle", list(st.zones[deck])))

    State.shuffle_zone = recording_shuffle  # type: ignore[method-assign]
    bad = 0
    try:
        for s in range(seed, seed + games):
            rng = random.Random(s)
            st = game.new_game(s, log=False)
            sq = [st.zones[z] for z in squares]
            size = len(sq[0])
            pops = [sq[p][r] for r in range(size) for p in range(players)] + st.zones[discard] + st.zones[deck][::-1]
            trace = [("shuffle", pops[::-1]), ("pick", players, st.current, None)]
            while not st.over:
                k = st.num_moves()
                i = rng.randrange(k)
                trace.append(("pick", k, i, st.clone(log=False)))
                st.apply_index(i)
            events = iter(trace)
            trace = None

            try:
                replay = Replay(events, (1 << players) - 1)
                moves, _, winners, _, _ = baseline_tamalo.simulate_game(s, players, replay)
                left = sum(1 for _ in events)
                if left or moves != st.moves or sorted(winners) != sorted(st.winners):
                    raise Diverged(f"the ends differ: baseline {moves} moves, winners {winners}; engine "
                                   f"{st.moves} moves, winners {st.winners}, {left} events not replayed", ("end",))
            except Diverged as e:
                bad += 1
                if bad <= 3:
                    print(f"seed {s}: {e.args[0]}")
                    ev = e.args[1]
                    if len(ev) > 3 and ev[3] is not None:
                        print(ev[3].view(ev[3].chooser, reveal=True))
                        print("engine's options:", ", ".join(ev[3].move_texts()))
    finally:
        State.shuffle_zone = shuffle_zone  # type: ignore[method-assign]
    return bad


def wins(records: list[dict], players: int) -> list[float]:
    w = [0.0] * players
    for r in records:
        for p in r["winners"]:
            w[p] += 1 / len(r["winners"])
    return w


def options_p(ga: list[Counter], gb: list[Counter]) -> tuple[float, int]:
    """Do both sides ask decisions with the same numbers of options? The unit is the game, not the
    decision: the decisions of one game are far from independent (a Tamalo square that grew by
    penalties stays grown for the rest of the game), so a chi-square over all decisions finds
    "differences" between two samples of the same simulator (p < 1e-9 for the baseline against
    itself on other seeds). Option counts are pooled into bins, from the largest down, until a bin
    holds 2% of the decisions; per bin, each game gives the share of its decisions in the bin, and
    Welch's test compares the games of the two sides. Returns (the smallest p-value times the
    number of bins, capped at 1: Bonferroni, the number of bins)."""
    total = Counter()
    for h in (*ga, *gb):
        total.update(h)
    n = sum(total.values())
    bins: list[list[int]] = []
    cur: list[int] = []
    held = 0
    for k in sorted(total, reverse=True):
        cur.append(k)
        held += total[k]
        if held >= 0.02 * n:
            bins.append(cur)
            cur, held = [], 0
    if cur:
        if bins:
            bins[-1].extend(cur)
        else:
            bins.append(cur)
    if len(bins) < 2:
        return 1.0, len(bins)

    def shares(games: list[Counter], ks: list[int]) -> list[float]:
        return [sum(h[k] for k in ks) / max(1, sum(h.values())) for h in games]

    worst = min(welch_p(shares(ga, ks), shares(gb, ks)) for ks in bins)
    return min(1.0, worst * len(bins)), len(bins)


def compare(eng: list[dict], base: list[dict], players: int, per_seat: str) -> list[tuple]:
    """Rows: (statistic, engine value, baseline value, p-value)."""
    rows = []
    for key, label in (("moves", "moves per game"), ("turns", "turns per game"), ("rounds", "rounds per game"),
                       ("per_turn", "moves per turn"), ("per_seat", per_seat),
                       ("shown", "hand cards all know, per seat")):
        a = [r[key] for r in eng if r[key] is not None]
        b = [r[key] for r in base if r[key] is not None]
        if not a or not b:
            continue
        (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
        if sa == sb == 0 and ma == mb:
            continue  # the same constant on both sides (Tamalo has one round)
        rows.append((label, f"{ma:.3f} (sd {sa:.2f})", f"{mb:.3f} (sd {sb:.2f})", welch_p(a, b)))
    we, wb = wins(eng, players), wins(base, players)
    ne, nb = len(eng), len(base)
    for p in range(players):
        rows.append((f"win rate, seat {p + 1}", f"{we[p] / ne:.4f}", f"{wb[p] / nb:.4f}",
                     proportions_p(we[p], ne, wb[p], nb)))
    se = sum(1 for r in eng if len(r["winners"]) > 1)
    sb_ = sum(1 for r in base if len(r["winners"]) > 1)
    rows.append(("shared wins", f"{se / ne:.4f}", f"{sb_ / nb:.4f}", proportions_p(se, ne, sb_, nb)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stride", type=int, default=STRIDE,
                    help="the engine plays seeds S, S+K, S+2K, ... (default %(default)s)")
    ap.add_argument("--only", choices=["tempurra", "tamalo"])
    ap.add_argument("--lockstep", action="store_true",
                    help="Tamalo only: replay each engine game in the baseline, decision for decision")
    args = ap.parse_args(argv)
    if args.lockstep:
        bad = lockstep_tamalo(args.games, args.players, args.seed)
        print(f"tamalo lockstep: {args.games - bad} of {args.games} games identical, decision for decision")
        return 1 if bad else 0
    print(f"rulesdsl from {Path(rulesdsl.__file__).parent}; {args.games} games a side at {args.players} players; "
          f"engine seeds {args.seed}, {args.seed + args.stride}, ...; baseline seeds {args.seed}, {args.seed + 1}, ...")
    worst = 1.0
    for name, per_seat in (("tempurra", "tokens per seat at the end"), ("tamalo", "points per seat at the end")):
        if args.only and args.only != name:
            continue
        ge: list[Counter] = []
        gb: list[Counter] = []
        t0 = time.perf_counter()
        eng = engine_records(ROOT / "games" / f"{name}.rules", args.games, args.players, args.seed, args.stride, ge)
        t1 = time.perf_counter()
        base = baseline_records(name, args.games, args.players, args.seed, gb)
        t2 = time.perf_counter()
        print(f"\n{name}: engine {t1 - t0:.1f} s, baseline {t2 - t1:.1f} s")
        print(f"  {'statistic':28} {'engine':>22} {'baseline':>22} {'p':>8}")
        rows = compare(eng, base, args.players, per_seat)
        he, hb = sum(ge, Counter()), sum(gb, Counter())
        if he:
            p, nbins = options_p(ge, gb)
            rows.append((f"options per decision ({nbins} bins)", f"1..{max(he)}: {he.total()} dec.",
                         f"1..{max(hb)}: {hb.total()} dec.", p))
        for label, a, b, p in rows:
            worst = min(worst, p)
            flag = "  <- differs" if p < 0.001 else ""
            print(f"  {label:28} {a:>22} {b:>22} {p:8.3f}{flag}")
        if he:
            print("  decisions by number of options (engine / baseline):")
            ks = sorted(set(he) | set(hb))
            print("   " + "  ".join(f"{k}: {he[k]}/{hb[k]}" for k in ks))
    print(f"\nsmallest p-value: {worst:.4f}")
    return 1 if worst < 0.001 else 0


if __name__ == "__main__":
    sys.exit(main())
