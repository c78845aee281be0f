"""Games on every core: jobs (chunks of consecutive seeds) run in worker processes or on Ray,
and their results come back in job order.

A game depends only on its seed, so splitting the seeds into chunks and putting the chunks' results
back in order gives the records a single process gives, for any number of workers. Workers do not
receive a compiled `Game` (its generated code does not pickle); they receive a `GameSpec` and load
the game once per process. Forked workers inherit the games the parent already loaded.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import attrs

from .engine.game import Game

BACKENDS = ("process", "ray")
# More chunks than workers, so a worker that drew short games takes another chunk.
CHUNKS_PER_WORKER = 4


class BackendError(Exception):
    """A backend that cannot run here (Ray not installed, an unknown name): a command-line mistake."""


@attrs.frozen
class GameSpec:
    """What a worker needs to load the same game: the file, the players, the names, the parameters,
    the limits, and the folders its imports may read (`--allow-path`; else a worker refuses what
    the parent read)."""

    path: str
    players: int
    names: tuple[str, ...]
    params: tuple[tuple[str, Any], ...]
    sources: str  # a digest of the rules texts: two games from texts (no file) are told apart
    limits: tuple[tuple[str, int], ...] = ()
    allow_paths: tuple[str, ...] = ()

    @classmethod
    def of(cls, game: Game) -> GameSpec:
        path = Path(game.path)
        where = str(path.resolve()) if path.is_file() else str(game.path)  # workers may start elsewhere
        digest = hashlib.sha1("\0".join(f"{k}\0{v}" for k, v in sorted(game.sources.items())).encode()).hexdigest()
        return cls(where, game.players, tuple(game.names), tuple(sorted(game.params.items())), digest,
                   tuple(sorted(game.limits.items())), tuple(game.allow_paths))

    def load(self) -> Game:
        """The game, loaded once per process (or inherited from the parent by a forked worker)."""
        game = _LOADED.get(self)
        if game is None:
            from . import load

            if not Path(self.path).is_file():
                raise BackendError(f"a worker cannot load '{self.path}': only a game loaded from a file runs "
                                   "in parallel")
            game = _LOADED[self] = load(self.path, self.players, list(self.names), dict(self.limits),
                                        allow_paths=self.allow_paths, **dict(self.params))
        return game


_LOADED: dict[GameSpec, Game] = {}


def remember(game: Game) -> GameSpec:
    """The game's spec; the game itself is kept for this process and the workers forked from it."""
    spec = GameSpec.of(game)
    _LOADED[spec] = game
    return spec


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def split(seeds: Sequence[int], workers: int) -> list[Sequence[int]]:
    """Consecutive chunks of the seeds, a few per worker; one chunk for a single worker."""
    n = len(seeds)
    parts = 1 if workers <= 1 else min(n, workers * CHUNKS_PER_WORKER)
    if parts <= 1:
        return [seeds] if n else []
    bounds = [n * i // parts for i in range(parts + 1)]
    return [seeds[a:b] for a, b in pairwise(bounds) if b > a]


def check_backend(backend: str) -> None:
    """Raise BackendError, with what to do, if `backend` cannot run here."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise BackendError("--backend ray needs Ray: pip install 'rulesdsl[ray]'") from None


def start(backend: str, workers: int) -> None:
    """Start what the backend needs before the clock starts (a local Ray instance takes seconds).
    A Ray already initialised (a cluster, a test's `ray.init`) is used as it is; otherwise Ray is
    joined at RAY_ADDRESS, or a local instance is started with `workers` CPUs."""
    if backend != "ray":
        return
    import logging

    import ray

    if not ray.is_initialized():
        if os.environ.get("RAY_ADDRESS"):
            ray.init(logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING)


def run(fn: Callable[[Any], Any], jobs: list, workers: int, backend: str = "process",
        done: Callable[[int, Any], None] | None = None, progress: Callable[[int], None] | None = None) -> list:
    """`[fn(job) for job in jobs]`, on `workers` processes or Ray tasks. `fn` must be a module-level
    function (workers import it by name). `done(i, result)` is called for each job, in job order,
    as results arrive. An exception raised by `fn` is raised here, the first in job order.
    `progress(n)`: the number of `tick()`s so far (a job ticks once a game), told as they come,
    in the pool's processes too, not only when a job ends (Ray's tasks do not tick)."""
    check_backend(backend)
    if backend == "ray":
        return _run_ray(fn, jobs, workers, done)
    if workers <= 1 or len(jobs) <= 1:
        return _run_here(fn, jobs, done, progress)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ticks = multiprocessing.Value("q", 0)
    out = []
    told = 0
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=_count_ticks, initargs=(ticks,)) as pool:
        futures = [pool.submit(fn, job) for job in jobs]
        for i, future in enumerate(futures):
            while True:
                try:
                    result = future.result(timeout=PROGRESS_SECONDS if progress is not None else None)
                    break
                except TimeoutError:
                    told = _tell(progress, ticks.value, told)
            out.append(result)
            if done is not None:
                done(i, result)
        _tell(progress, ticks.value, told)
    return out


# How often (seconds) `run` tells the ticks of its workers.
PROGRESS_SECONDS = 0.2
_tick: Callable[[], None] | None = None  # what `tick()` does in this process


def tick() -> None:
    """A job's function calls this after each game it plays: `run`'s progress moves as games end."""
    if _tick is not None:
        _tick()


def _count_ticks(ticks) -> None:
    """A pool worker's start: its ticks go to the counter the parent reads."""
    global _tick

    def count() -> None:
        with ticks.get_lock():
            ticks.value += 1

    _tick = count


def _tell(progress: Callable[[int], None] | None, n: int, told: int) -> int:
    if progress is not None and n != told:
        progress(n)
    return n


def _run_here(fn: Callable[[Any], Any], jobs: list, done: Callable[[int, Any], None] | None,
              progress: Callable[[int], None] | None) -> list:
    """`run` in this process: each tick is told at once."""
    global _tick
    count = 0

    def counted() -> None:
        nonlocal count
        count += 1
        if progress is not None:
            progress(count)

    before, _tick = _tick, counted
    try:
        out = []
        for i, job in enumerate(jobs):
            out.append(fn(job))
            if done is not None:
                done(i, out[-1])
        return out
    finally:
        _tick = before


def _run_ray(fn: Callable[[Any], Any], jobs: list, workers: int, done: Callable[[int, Any], None] | None) -> list:
    """Each job is a Ray task; results are fetched in job order."""
    import ray

    start(backend="ray", workers=workers)
    task = ray.remote(fn)
    refs = [task.remote(job) for job in jobs]
    out = []
    for i, ref in enumerate(refs):
        out.append(ray.get(ref))
        if done is not None:
            done(i, out[-1])
    return out
