"""A one-ply bot: it tries each of its moves in a few sampled worlds and keeps the best.

No tree: after its own move everyone plays at random to the end, and a move is worth its average
share of the win. All moves are tried on the same worlds (and the same playout seeds), so their
differences are not drowned by the luck of the deal.
"""

from __future__ import annotations

import random

from ..engine.state import State
from ..errors import RulesRuntimeError
from .worlds import impossible, playout, search_copy

DEFAULT_SAMPLES = 8
PLAYOUT_LIMIT = 2_000


class GreedyBot:
    """`samples` sampled worlds a decision, every move played out once in each."""

    name = "greedy"

    def __init__(self, seed: int | None = None, samples: int = DEFAULT_SAMPLES, playout_limit: int = PLAYOUT_LIMIT):
        self.rng = random.Random(seed)
        self.samples = samples
        self.playout_limit = playout_limit

    def choose(self, state: State) -> int:
        n = len(state.options)
        if n <= 1:
            return 0
        me = state.chooser
        base = search_copy(state)
        scores = [0.0] * n
        for _ in range(self.samples):
            world = base.determinize(me, self.rng, log=False)
            seed = self.rng.getrandbits(64)
            for i in range(n):
                d = world.clone(log=False)
                try:
                    d.apply_index(i)
                except RulesRuntimeError:
                    scores[i] += impossible(d)[me]
                    continue
                scores[i] += playout(d, random.Random(seed), self.playout_limit)[me]
        return max(range(n), key=scores.__getitem__)
