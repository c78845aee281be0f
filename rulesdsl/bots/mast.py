"""Playouts by a cheap learned policy: the move-average sampling technique (MAST; Finnsson and
Björnsson, 2008, from general game playing, where no evaluation of a game may be written).

A move's average reward to the seat that made it, over every iteration it took part in, in the
tree or in a playout, keyed by the decision and the option's value (a card is the same card in
every sampled world), not by the world. A playout then takes, with probability 1 - epsilon, the
move of best average among those it may play (an unseen move counts as good, so it is tried), and
otherwise one at random: moves that kept paying are played more, so playouts look less like random
play and more like the players' real choices. The table is learned only from the bot's own
playouts in worlds sampled from its seat's knowledge; it carries over to the bot's next decision
at half weight.

`others`: the epsilon of the other seats' playout moves, if not the seat's own. With 1 they play
uniformly at random while the searching seat plays by its averages: its future self careful, the
others not presumed so. It won more in one seed game and lost ground in another card game, so
`ismcts2` keeps one epsilon for all (the figures in docs/bots.md).
"""

from __future__ import annotations

import random

from ..engine.state import State

UNSEEN = 1.0  # the average of a move never scored: tried before the known ones


def hashable(value):
    """An option's value as a key: a `choose set`'s option is a list of cards (kept in its order)."""
    if isinstance(value, list | tuple):
        return tuple(hashable(v) for v in value)
    return value


class Mast:
    def __init__(self, epsilon: float, others: float | None = None):
        self.epsilon = epsilon
        self.others = epsilon if others is None else others  # the other seats' epsilon
        self.table: dict[tuple, list[float]] = {}  # (decision, option) -> [reward sum, count]

    def decay(self) -> None:
        """A new decision: what was learned counts half (the game has moved on)."""
        for entry in self.table.values():
            entry[0] *= 0.5
            entry[1] *= 0.5

    def play(self, d: State, rng: random.Random, limit: int, steps: list[tuple[tuple, int]], me: int = -1) -> None:
        """Play `d` on to its end (or `limit` moves) by the policy, noting each (key, mover) in
        `steps`; seat `me` at `epsilon`, the others at `others`. A world the rules cannot end
        raises, as `State.playout` does."""
        table, own, others, randrange, rand = self.table, self.epsilon, self.others, rng.randrange, rng.random
        for _ in range(limit):
            if d.over:
                return
            options = d.options
            n = len(options)
            if n == 1:
                d.apply_index(0)
                continue
            pending = d.pending
            if rand() < (own if d.chooser == me else others):
                i = randrange(n)
            else:
                i, best = 0, -1.0
                for j, o in enumerate(options):
                    try:
                        entry = table.get((pending, o))
                    except TypeError:  # (a list of cards: rare, so not paid for on every option)
                        entry = table.get((pending, hashable(o)))
                    v = entry[0] / entry[1] if entry is not None and entry[1] > 0 else UNSEEN
                    if v > best:
                        i, best = j, v
            steps.append(((pending, options[i]), d.chooser))
            d.apply_index(i)

    def learn(self, steps: list[tuple[tuple, int]], rewards: list[float]) -> None:
        table = self.table
        for key, mover in steps:
            try:
                entry = table.get(key)
            except TypeError:
                key = (key[0], hashable(key[1]))
                entry = table.get(key)
            if entry is None:
                table[key] = [rewards[mover], 1.0]
            else:
                entry[0] += rewards[mover]
                entry[1] += 1.0
