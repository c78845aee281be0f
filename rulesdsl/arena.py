"""Bots against bots: win rates by bot kind, with seats rotated so no bot gains from its seat.

Game g deals with seed S + g // P (P players) and rotates the line-up by g % P, so every deal is
played once with each bot in each seat. A bot's seed depends only on its game and seat, so the
results do not depend on how games are spread over processes.
"""

from __future__ import annotations

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
                     choices, seconds, slowest, counters_at_end(game, st))


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
