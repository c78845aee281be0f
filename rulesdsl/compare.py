"""What a house rule changes: the same seeds played under a base game and its variants, and the
differences that are larger than chance (Welch's t-test for means, a two-proportion z-test for
win rates, Wilson intervals for the rates themselves)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from . import load
from .engine.game import Game
from .simulate import GameRecord, Stats, simulate_many

Z95 = 1.959963984540054


def mean_sd(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def welch_p(a: list[float], b: list[float]) -> float:
    """Two-sided p-value that two samples have the same mean (normal approximation of Welch's
    t-test: fine for the hundreds of games a comparison plays)."""
    ma, sa = mean_sd(a)
    mb, sb = mean_sd(b)
    se = math.sqrt(sa * sa / max(1, len(a)) + sb * sb / max(1, len(b)))
    if se == 0:
        return 1.0 if ma == mb else 0.0
    return 2 * normal_sf(abs(ma - mb) / se)


def wilson(k: float, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / d
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def proportions_p(k1: float, n1: int, k2: float, n2: int) -> float:
    """Two-sided p-value that two proportions are equal (pooled z-test)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return 2 * normal_sf(abs(k1 / n1 - k2 / n2) / se)


@attrs.define
class Metric:
    """One row of the comparison: a value per file, and the p-value of each variant against the base."""

    name: str
    kind: str  # mean (with a spread) or rate (with an interval)
    values: list[float]
    spreads: list[tuple[float, float]]  # (sd, 0) for a mean; the interval for a rate
    p: list[float | None]  # None for the base


def _records_metric(name: str, stats: list[Stats], f: Callable[[GameRecord], float]) -> Metric:
    samples = [[f(r) for r in s.records if not r.capped] for s in stats]
    values, spreads = [], []
    for xs in samples:
        m, sd = mean_sd(xs)
        values.append(m)
        spreads.append((sd, 0.0))
    p = [None] + [welch_p(samples[0], xs) for xs in samples[1:]]
    return Metric(name, "mean", values, spreads, p)


def compare_stats(stats: list[Stats]) -> list[Metric]:
    metrics = [
        _records_metric("moves per game", stats, lambda r: r.moves),
        _records_metric("turns per game", stats, lambda r: r.turns),
        _records_metric("rounds per game", stats, lambda r: r.rounds),
    ]
    players = min(s.players for s in stats)
    for seat in range(players):
        wins = [s.wins_by_seat()[seat] for s in stats]
        ns = [sum(1 for r in s.records if not r.capped) for s in stats]
        values = [w / n if n else 0.0 for w, n in zip(wins, ns, strict=True)]
        spreads = [wilson(w, n) for w, n in zip(wins, ns, strict=True)]
        p = [None] + [proportions_p(wins[0], ns[0], w, n) for w, n in zip(wins[1:], ns[1:], strict=True)]
        metrics.append(Metric(f"win rate, seat {seat + 1}", "rate", values, spreads, p))
    shared = set(stats[0].records[0].counters) if stats[0].records else set()
    for s in stats[1:]:
        shared &= set(s.records[0].counters) if s.records else set()
    for name in sorted(shared):
        metrics.append(_records_metric(f"{name} (mean at the end)", stats,
                                       lambda r, n=name: sum(r.counters[n]) / len(r.counters[n])))
    names = set(stats[0].statistic_means())
    for s in stats[1:]:
        names &= set(s.statistic_means())
    for name in sorted(names):
        metrics.append(_records_metric(name, stats, lambda r, n=name: r.statistics.get(n, 0.0)))
    return metrics


def run_comparison(paths: list[str], games: int, players: int | None, params: dict, seed: int,
                   bots: list[str], max_moves: int, workers: int = 1, backend: str = "process",
                   loaded: list[Game] | None = None, *, limits: dict | None = None,
                   allow_paths: Sequence[str | Path] = (), progress: Callable[[int], None] | None = None,
                   ) -> list[Stats]:
    """Every file plays the same seeds. With workers > 1 the games of all files are spread over
    the workers in chunks of seeds (rulesdsl.parallel); the results are those of one process.
    `loaded`: the games, if the caller has loaded them already. `limits` and `allow_paths` are
    `rulesdsl.load`'s, for the files loaded here. `progress(n)`: the games played so far, all
    files together."""
    def loading(path: str, n: int | None) -> Game:
        return load(path, players=n, limits=limits, allow_paths=allow_paths, **params)

    if players is None:
        players = (loaded[0] if loaded else loading(paths[0], None)).players
    if loaded is None or any(g.players != players for g in loaded):
        loaded = [loading(p, players) for p in paths]
    return simulate_many(loaded, games, seed, bots, max_moves, progress, workers, backend)
