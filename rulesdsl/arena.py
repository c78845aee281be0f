"""Bots against bots: win rates by bot kind, with seats rotated so no bot gains from its seat.

Game g deals with seed S + g // P (P players) and rotates the line-up by g % P, so every deal is
played once with each bot in each seat. A bot's seed depends only on its game and seat, so the
results do not depend on how games are spread over processes.

A ladder (`run_ladder`, `ratings`) plays every two bots against each other and rates them all at
once: Bradley-Terry by maximum likelihood from the comparisons of their seats, on the Elo scale.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from . import load, parallel
from .bots import make_bot
from .compare import wilson
from .engine.game import Game
from .errors import RulesRuntimeError
from .simulate import DEFAULT_MAX_MOVES, SimulationError, counters_at_end


@attrs.define
class ArenaGame:
    """One game: who sat where, who won, and the bots' thinking time (moves with a real choice)."""

    index: int
    seed: int
    bots: list[str]  # by seat
    winners: list[int]
    capped: bool
    moves: int
    choices: list[int]  # decisions with more than one option, by seat
    seconds: list[float]  # time spent on them, by seat
    slowest: list[float]  # the longest of them, by seat
    counters: dict[str, list[int]] = attrs.Factory(dict)  # each counter at the end, by seat (one for a global)
    ranking: list[int] = attrs.Factory(list)  # each seat's rank at the end (1 is first; empty if capped)


@attrs.define
class BotRow:
    bot: str
    seats: int  # entries of the line-up with this bot
    games: int  # seat-games played (seats x games)
    wins: float  # a shared win counts 1/k
    interval: tuple[float, float]
    choices: int
    seconds: float
    slowest: float

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def seconds_per_choice(self) -> float:
        return self.seconds / self.choices if self.choices else 0.0


def lineup_for(bots: list[str], players: int) -> list[str]:
    """The line-up of `players` seats: the bots given, repeated in turn if there are fewer."""
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots for {players} seats: give at most one bot per seat")
    return [bots[i % len(bots)] for i in range(players)]


def seating(lineup: list[str], index: int) -> list[str]:
    """The bot of each seat in game `index`: entry j of the line-up sits in seat (j + index) % P."""
    n = len(lineup)
    r = index % n
    return [lineup[(s - r) % n] for s in range(n)]


def game_seed(seed: int, index: int, players: int) -> int:
    return seed + index // players


def bot_seed(seed: int, index: int, seat: int) -> int:
    return (seed + index) * 1009 + seat


def play_game(game: Game, seed: int, lineup: list[str], index: int, max_moves: int = DEFAULT_MAX_MOVES) -> ArenaGame:
    n = game.players
    seats = seating(lineup, index)
    bots = [make_bot(spec, bot_seed(seed, index, p)) for p, spec in enumerate(seats)]
    choices, seconds, slowest = [0] * n, [0.0] * n, [0.0] * n
    gseed = game_seed(seed, index, n)
    played: list[int] = []
    clock = time.perf_counter
    try:
        st = game.new_game(gseed, log=False)
        while not st.over and st.moves < max_moves:
            p = st.chooser
            if len(st.options) > 1:
                t = clock()
                i = bots[p].choose(st)
                dt = clock() - t
                choices[p] += 1
                seconds[p] += dt
                slowest[p] = max(slowest[p], dt)
            else:
                i = bots[p].choose(st)
            played.append(i)
            st.apply_index(i)
    except RulesRuntimeError as e:
        raise SimulationError(gseed, played, e) from None
    return ArenaGame(index, gseed, seats, list(st.winners) if st.over else [], not st.over, st.moves,
                     choices, seconds, slowest, counters_at_end(game, st), list(st.ranking) if st.over else [])


def _play_chunk(job: tuple) -> list[ArenaGame]:
    spec, seed, lineup, indices, max_moves = job
    game = spec.load()
    out = []
    for i in indices:
        out.append(play_game(game, seed, lineup, i, max_moves))
        parallel.tick()
    return out


def run_arena(path: str, bots: list[str], games: int, players: int | None = None, params: dict | None = None,
              seed: int = 0, workers: int = 1, max_moves: int = DEFAULT_MAX_MOVES,
              backend: str = "process", limits: dict | None = None,
              allow_paths: Sequence[str | Path] = (), progress: Callable[[int], None] | None = None,
              ) -> tuple[Game, list[str], list[ArenaGame]]:
    """Play `games` games of the file, in `workers` processes (or Ray tasks) if more than one
    (the same results, rulesdsl.parallel): the game, the line-up and the games in order.
    `allow_paths`: more folders the file's imports may read (the workers' loads too).
    `progress(n)`: told the games played so far as they end (Ray's in chunks)."""
    params = params or {}
    game = load(path, players=players, limits=limits, allow_paths=allow_paths, **params)
    lineup = lineup_for(bots, game.players)
    for spec in set(lineup):
        make_bot(spec, 0)  # a bad spec fails here, before any process starts
    if (workers <= 1 or games < 2) and backend == "process":
        job = (parallel.remember(game), seed, lineup, range(games), max_moves)
        return game, lineup, parallel.run(_play_chunk, [job], 1, backend, progress=progress)[0]
    # Small chunks, round robin: games differ in length, and the bots' speed too.
    chunks = min(games, workers * 8)
    spec = parallel.remember(game)
    jobs = [(spec, seed, lineup, list(range(k, games, chunks)), max_moves) for k in range(chunks)]
    played = 0

    def done(_i: int, part: list[ArenaGame]) -> None:
        nonlocal played
        played += len(part)
        if progress is not None and backend == "ray":  # (a pool's workers tell each game as it ends)
            progress(played)

    results = [g for part in parallel.run(_play_chunk, jobs, workers, backend, done, progress) for g in part]
    return game, lineup, sorted(results, key=lambda g: g.index)


def summarize(records: list[ArenaGame], lineup: list[str]) -> list[BotRow]:
    """One row per bot kind (as written), in the order of the line-up."""
    rows: dict[str, BotRow] = {}
    entries: dict[str, int] = {}
    for spec in lineup:
        entries[spec] = entries.get(spec, 0) + 1
        rows.setdefault(spec, BotRow(spec, 0, 0, 0.0, (0.0, 1.0), 0, 0.0, 0.0))
    for r in records:
        share = 1 / len(r.winners) if r.winners else 0.0
        for seat, spec in enumerate(r.bots):
            row = rows[spec]
            row.games += 1
            if seat in r.winners:
                row.wins += share
            row.choices += r.choices[seat]
            row.seconds += r.seconds[seat]
            row.slowest = max(row.slowest, r.slowest[seat])
    for row in rows.values():
        row.seats = entries[row.bot]
        row.interval = wilson(row.wins, row.games)
    return list(rows.values())


def seat_counts(records: list[ArenaGame], players: int) -> dict[str, list[int]]:
    """How many games each bot kind played in each seat (equal when games are a multiple of P)."""
    out: dict[str, list[int]] = {}
    for r in records:
        for seat, spec in enumerate(r.bots):
            out.setdefault(spec, [0] * players)[seat] += 1
    return out


# ---------------------------------------------------------------- the ladder

ELO = 400 / math.log(10)  # Elo points per unit of log-strength (a 400-point gap is 10 to 1)


@attrs.define
class Pairing:
    """The games of two bots of a ladder against each other (line-up a, b, a, b, ... rotated)."""

    bots: tuple[str, str]
    lineup: list[str]
    records: list[ArenaGame]


@attrs.define
class Rating:
    bot: str
    elo: float  # relative to the ladder's first bot, which is 0
    interval: tuple[float, float]  # 95%, by resampling the games
    score: float  # the share of its comparisons with other bots' seats it won (a tie counts half)
    comparisons: int
    choices: int
    seconds: float
    slowest: float

    @property
    def seconds_per_choice(self) -> float:
        return self.seconds / self.choices if self.choices else 0.0


def comparisons(record: ArenaGame, index: dict[str, int]) -> list[tuple[int, int, float]]:
    """Each pair of seats held by different bots in one game: (bot i, bot j, i's score): 1 if
    seat of i ended ahead (a larger share of the win, then a better rank), 0 if behind, 1/2 if
    level. A capped game has no winner and no ranking: all its pairs are level."""
    share = 1 / len(record.winners) if record.winners else 0.0
    rank = record.ranking or [0] * len(record.bots)
    key = [(share if s in record.winners else 0.0, -rank[s]) for s in range(len(record.bots))]
    out = []
    for s, a in enumerate(record.bots):
        for t in range(s + 1, len(record.bots)):
            b = record.bots[t]
            if a != b:
                out.append((index[a], index[b], 1.0 if key[s] > key[t] else 0.0 if key[s] < key[t] else 0.5))
    return out


def bradley_terry(k: int, comps: Sequence[tuple[int, int, float]], prior: float = 1.0) -> list[float]:
    """The maximum-likelihood log-strengths of k players from pairwise scores (Bradley-Terry, by
    Hunter's MM iteration; a tie is half a win each way), mean 0. `prior` adds that many drawn
    comparisons between every two players, so a player who never lost (or never won) still has a
    finite strength; it pulls ratings slightly towards each other."""
    wins = [0.0] * k
    games = [[0.0] * k for _ in range(k)]
    for i, j, s in comps:
        wins[i] += s
        wins[j] += 1 - s
        games[i][j] += 1
        games[j][i] += 1
    for i in range(k):
        for j in range(k):
            if i != j:
                games[i][j] += prior
        wins[i] += prior * (k - 1) / 2
    gamma = [1.0] * k
    for _ in range(10_000):
        new = [wins[i] / sum(games[i][j] / (gamma[i] + gamma[j]) for j in range(k) if j != i and games[i][j])
               if wins[i] else 1e-12 for i in range(k)]
        mean = math.exp(sum(math.log(g) for g in new) / k)
        new = [g / mean for g in new]
        done = max(abs(math.log(a / b)) for a, b in zip(new, gamma, strict=True)) < 1e-10
        gamma = new
        if done:
            break
    return [math.log(g) for g in gamma]


def ratings(bots: list[str], pairings: list[Pairing], resamples: int = 200, seed: int = 0) -> list[Rating]:
    """Elo ratings of the ladder's bots from all their games, the first bot at 0, each with a 95%
    interval from `resamples` bootstrap resamples of each pairing's games (the comparisons of one
    game are not independent, so games, not comparisons, are resampled). Best first."""
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    per_game = [[comparisons(r, index) for r in p.records] for p in pairings]

    def fit(games: list[list[list[tuple[int, int, float]]]]) -> list[float]:
        theta = bradley_terry(k, [c for part in games for g in part for c in g])
        return [ELO * (t - theta[0]) for t in theta]

    elo = fit(per_game)
    rng = random.Random(seed)
    samples: list[list[float]] = [[] for _ in range(k)]
    for _ in range(resamples):
        again = [[part[rng.randrange(len(part))] for _ in part] if part else [] for part in per_game]
        for i, e in enumerate(fit(again)):
            samples[i].append(e)
    summaries = [summarize(p.records, p.lineup) for p in pairings]  # once a pairing, not once a bot
    out = []
    for i, bot in enumerate(bots):
        mine = [(c[2] if c[0] == i else 1 - c[2]) for part in per_game for g in part for c in g if i in c[:2]]
        xs = sorted(samples[i])
        lo, hi = (xs[int(0.025 * (len(xs) - 1))], xs[int(0.975 * (len(xs) - 1))]) if xs else (elo[i], elo[i])
        rows = [row for part in summaries for row in part if row.bot == bot]
        out.append(Rating(bot, elo[i], (lo, hi), sum(mine) / len(mine) if mine else 0.0, len(mine),
                          sum(r.choices for r in rows), sum(r.seconds for r in rows),
                          max((r.slowest for r in rows), default=0.0)))
    return sorted(out, key=lambda r: -r.elo)


def run_ladder(path: str, bots: list[str], games: int, players: int | None = None, params: dict | None = None,
               seed: int = 0, workers: int = 1, max_moves: int = DEFAULT_MAX_MOVES, backend: str = "process",
               limits: dict | None = None, allow_paths: Sequence[str | Path] = (),
               progress: Callable[[int], None] | None = None) -> tuple[Game, list[Pairing]]:
    """A round robin: every two bots of `bots` play `games` games against each other (line-up
    a, b repeated over the seats, rotated; the same deals for every pairing)."""
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise ValueError("a ladder needs at least two different bots, such as random,ismcts")
    pairings: list[Pairing] = []
    game: Game | None = None
    for n, (a, b) in enumerate((a, b) for i, a in enumerate(bots) for b in bots[i + 1:]):
        tell = None if progress is None else (lambda k, base=n * games: progress(base + k))
        game, lineup, records = run_arena(path, [a, b], games, players, params, seed, workers, max_moves, backend,
                                          limits, allow_paths, tell)
        pairings.append(Pairing((a, b), lineup, records))
    assert game is not None
    return game, pairings
