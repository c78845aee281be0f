"""Bots play many games; the statistics a rules author wants to see (length, wins, counters)."""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from . import parallel
from .bots import RandomBot, make_bot
from .engine.game import Game
from .errors import RulesRuntimeError

DEFAULT_MAX_MOVES = 20_000


@attrs.define
class GameRecord:
    seed: int
    moves: int
    turns: int
    rounds: int
    winners: list[int]
    capped: bool
    counters: dict[str, list[int]]
    statistics: dict[str, float] = attrs.Factory(dict)


@attrs.define
class SimulationError(Exception):
    """A game that broke a rule of the engine; carries what is needed to replay it."""

    seed: int
    moves: list[int]
    error: RulesRuntimeError

    def __str__(self) -> str:
        return f"game with seed {self.seed} failed after {len(self.moves)} moves: {self.error}"

    def __reduce__(self):
        # From a worker process (an exception's own pickling would call __init__ with its text).
        return SimulationError, (self.seed, self.moves, self.error)


@attrs.define
class Stats:
    game: str
    players: int
    params: dict
    seed: int
    bots: list[str]
    records: list[GameRecord] = attrs.Factory(list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def moves(self) -> int:
        return sum(r.moves for r in self.records)

    @property
    def capped(self) -> int:
        return sum(r.capped for r in self.records)

    def mean(self, f: Callable[[GameRecord], float]) -> float:
        return sum(f(r) for r in self.records) / len(self.records) if self.records else 0.0

    def wins_by_seat(self) -> list[float]:
        """Wins per seat; a shared win counts 1/k for each of k winners, so they sum to the games."""
        wins = [0.0] * self.players
        for r in self.records:
            if r.capped or not r.winners:
                continue
            for w in r.winners:
                wins[w] += 1 / len(r.winners)
        return wins

    def shared(self) -> int:
        return sum(1 for r in self.records if len(r.winners) > 1 and not r.capped)

    def counter_means(self) -> dict[str, float]:
        names = self.records[0].counters.keys() if self.records else ()
        return {n: self.mean(lambda r, n=n: sum(r.counters[n]) / len(r.counters[n])) for n in names}

    def statistic_means(self) -> dict[str, float]:
        """Each `statistic` of the rules file, averaged over the games that ended (a rate for yes/no)."""
        done = [r for r in self.records if not r.capped]
        names = done[0].statistics.keys() if done else ()
        return {n: sum(r.statistics[n] for r in done) / len(done) for n in names}

    def to_dict(self) -> dict:
        secs = self.seconds
        return {
            "game": self.game,
            "games": self.games,
            "players": self.players,
            "params": self.params,
            "seed": self.seed,
            "bots": self.bots,
            "moves": self.moves,
            "seconds": round(secs, 3),
            "moves_per_s": round(self.moves / secs, 1) if secs > 0 else None,
            "mean_moves_per_game": round(self.mean(lambda r: r.moves), 3),
            "mean_turns_per_game": round(self.mean(lambda r: r.turns), 3),
            "mean_rounds_per_game": round(self.mean(lambda r: r.rounds), 3),
            "wins_by_seat": [round(w, 3) for w in self.wins_by_seat()],
            "shared_wins": self.shared(),
            "capped": self.capped,
            "counter_means": {k: round(v, 4) for k, v in self.counter_means().items()},
            "statistics": {k: round(v, 4) for k, v in self.statistic_means().items()},
        }


def play_one(game: Game, seed: int, bots: list[str], max_moves: int = DEFAULT_MAX_MOVES) -> GameRecord:
    """One game by bots, from `seed` (the game's chance) and seed-derived bot seeds."""
    players = [make_bot(bots[i % len(bots)], seed * 1009 + i) for i in range(game.players)]
    played: list[int] = []
    try:
        st = game.new_game(seed, log=False)
        if all(isinstance(b, RandomBot) for b in players):
            # Random bots only: the state plays on by itself, each seat's bot drawing its moves.
            draws = [b.rng.randrange for b in players]

            def pick(n: int) -> int:
                i = draws[st.chooser](n)
                played.append(i)
                return i

            if max_moves > st.moves:
                st.playout(pick, max_moves - st.moves)
        while not st.over and st.moves < max_moves:
            i = players[st.chooser].choose(st)
            played.append(i)
            st.apply_index(i)
        # (A statistic that fails is a located runtime error of the game, as a rule's is.)
        stats = {name: float(f(st) or 0) for name, f, _ in game.statistics} if st.over else {}
    except RulesRuntimeError as e:
        raise SimulationError(seed, played, e) from None
    counters = counters_at_end(game, st)
    return GameRecord(seed, st.moves, st.turn, st.round, list(st.winners) if st.over else [], not st.over, counters,
                      stats)


def counters_at_end(game: Game, st) -> dict[str, list[int]]:
    """Each counter of a finished game by name: one value per seat, or one for a global counter."""
    n = game.players
    return {name: st.counters[base:base + n] if per else [st.counters[base]]
            for name, (base, per) in game.counter_layout.items()}


def play_chunk(job: tuple) -> tuple[list[GameRecord], float]:
    """A worker's job: the games of some seeds (in order), and the seconds they took."""
    spec, seeds, bots, max_moves = job
    game = spec.load()
    t0 = time.perf_counter()
    records = []
    for s in seeds:
        records.append(play_one(game, s, bots, max_moves))
        parallel.tick()
    return records, time.perf_counter() - t0


def simulate(game: Game, games: int, seed: int = 0, bots: list[str] | None = None,
             max_moves: int = DEFAULT_MAX_MOVES, progress: Callable[[int], None] | None = None,
             workers: int = 1, backend: str = "process") -> Stats:
    """Games with seeds seed..seed+games-1. With workers > 1 (or Ray), chunks of seeds are played
    in parallel and their records put back in seed order: the records and every statistic are
    those of one process; only `seconds` (wall time, so moves/s counts every worker) differs."""
    return simulate_many([game], games, seed, bots, max_moves, progress, workers, backend)[0]


def simulate_many(games_: list[Game], games: int, seed: int = 0, bots: list[str] | None = None,
                  max_moves: int = DEFAULT_MAX_MOVES, progress: Callable[[int], None] | None = None,
                  workers: int = 1, backend: str = "process") -> list[Stats]:
    """`simulate` for several games on the same seeds, in one pool: every file's chunks are spread
    over the workers (rulesdsl compare). `progress` gets the games done over all files."""
    bots = bots or ["random"]
    out = [Stats(g.name, g.players, dict(g.params), seed, bots) for g in games_]
    parallel.start(backend, workers)
    t0 = time.perf_counter()
    if workers <= 1 and backend == "process":  # no pool, no spec: also games not loaded from a file
        done = 0
        for g, stats in zip(games_, out, strict=True):
            t1 = time.perf_counter()
            for i in range(games):
                stats.records.append(play_one(g, seed + i, bots, max_moves))
                done += 1
                if progress is not None:
                    progress(done)
            stats.seconds = time.perf_counter() - t1
        return out
    specs = [parallel.remember(g) for g in games_]
    chunks = parallel.split(range(seed, seed + games), workers)
    jobs = [(spec, chunk, bots, max_moves) for spec in specs for chunk in chunks]
    owner = [k for k in range(len(specs)) for _ in chunks]
    played = 0

    def done(i: int, result: tuple[list[GameRecord], float]) -> None:
        nonlocal played
        out[owner[i]].records.extend(result[0])
        out[owner[i]].seconds += result[1]
        played += len(result[0])
        if progress is not None and backend == "ray":  # (a pool's workers tell each game as it ends)
            progress(played)

    parallel.run(play_chunk, jobs, workers, backend, done, progress if backend != "ray" else None)
    if len(out) == 1:
        out[0].seconds = time.perf_counter() - t0
    return out
