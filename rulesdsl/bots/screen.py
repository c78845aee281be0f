"""Moves the deciding seat can tell are bad: dominated over the same sampled worlds, pruned before
the search.

Each candidate move is played in the same K worlds (sampled from the seat's knowledge only), each
followed by the same random continuation (common random numbers: one playout seed a world), and
the ends are compared world by world: first the share of the win, then the game's ranking
(`rank by`), which tells a close loss from a bad one. A world is a pair (world, continuation):
what the seat can sample.

Why not "worse in every world": the continuation is random play, so the same world played on
after two moves diverges at once, and a move that is sure to cost (a penalty card in every world)
still comes out ahead in a third of the worlds by the noise of the playouts. So "no better in any
world" almost never holds, even for such a move. The test used is the same comparison made
robust to that noise: move a is dominated by move b when b ends ahead of a in significantly more
of the shared worlds than behind (a one-sided sign test at level `alpha` divided by the number of
other moves, ties not counted), and b's mean share of the win is at least a's. If a is as good as
b in every world (in each, a is ahead at least as often as behind), a is pruned with probability
at most that level: a move merely unlucky in a few worlds is kept, and so is a gamble that wins
more often. The relation can cycle (each move ahead of the next in most worlds); then the move
with the best mean is kept, so a decision never loses every move.

The standing (`standing=True`): each move is also scored, in each world, by how the seat would end
had the game ended right after it (`State.end_now`, the rules' own end on a copy). A move behind
another on the standing in significantly more worlds (the same sign test) is pruned too, unless
the playouts put it ahead by more than one standard error of the paired difference. The
playouts' noise can hide a sure, small gain (a card fewer in every world); the standing shows it.
It guides where a move's worth is what it does at once, and misleads where it is what the move
leaves for later (a card kept, a high bid saved): the bot asks it only of an optional decision, an
opportunity the rules offer to take or pass (ismcts.py; docs/bots.md has the measures).
"""

from __future__ import annotations

import functools
import math
import random
import time

from ..engine.state import State
from ..errors import RulesRuntimeError
from .worlds import impossible, rewards, sample_world, search_copy

DEFAULT_WORLDS = 48
DEFAULT_ALPHA = 0.05
Outcome = tuple[float, int]  # the seat's share of the win, minus its rank
MAX_PLAYOUTS = 720  # the most playouts a screen may cost: fewer worlds for a wide decision
FEWEST_WORLDS = 8  # below this a sign test cannot be significant: no screen


def outcome(state: State, seat: int) -> Outcome:
    """How `seat` ended, to compare: its share of the win, then minus its rank (1 is first)."""
    share = rewards(state)[seat]
    rank = state.ranking[seat] if state.over and state.ranking else state.game.players
    return share, -rank


def tail(ahead: int, behind: int) -> float:
    """P(at least `ahead` heads in ahead + behind fair coin tosses): the sign test's p-value."""
    n = ahead + behind
    return sum(math.comb(n, x) for x in range(ahead, n + 1)) / 2 ** n


def ahead_significantly(xs: list[Outcome | None], ys: list[Outcome | None], level: float) -> bool:
    """Is xs ahead of ys in significantly more of the shared worlds than behind (the one-sided sign
    test; level worlds and worlds where either is None do not count)?"""
    ahead = behind = 0
    for x, y in zip(xs, ys, strict=True):
        if x is None or y is None:
            continue
        if x > y:
            ahead += 1
        elif x < y:
            behind += 1
    return ahead > behind and tail(ahead, behind) <= level


class Screen:
    """The outcome of each move in each shared world, and the moves dominated among them."""

    def __init__(self, outcomes: list[list[Outcome]], players: int, alpha: float = DEFAULT_ALPHA,
                 scores: list[list[float]] | None = None, standings: list[list[Outcome | None]] | None = None):
        self.outcomes = outcomes  # [move][world]: (share, -rank)
        self.scores = scores  # [move][world]: the seat's reward, as `worlds.rewards` scored that end
        # [move][world]: (share, -rank) had the game ended right after the move (None: it could not)
        self.standings = standings
        # what the standing's prune compares on the playouts: the search's rewards, else the shares
        self.paired = scores if scores is not None else [[o[0] for o in row] for row in outcomes]
        self.players = players
        n = len(outcomes)
        self.worlds = len(outcomes[0]) if outcomes else 0
        self.means = [sum(o[0] for o in row) / self.worlds if self.worlds else 0.0 for row in outcomes]
        self.level = level = alpha / max(1, n - 1)
        beaten = {a: [b for b in range(n) if b != a and (self.beats(b, a, level) or self.stands_over(b, a, level))]
                  for a in range(n)}
        self.dominated: dict[int, int] = {a: bs[0] for a, bs in beaten.items() if bs}  # pruned -> by whom
        self._keep_one()

    def _keep_one(self) -> None:
        if len(self.dominated) == len(self.outcomes):  # a cycle: keep the best mean (never prune every move)
            del self.dominated[max(range(len(self.outcomes)), key=self.means.__getitem__)]

    def undecided(self) -> bool:
        """Is a kept move behind another in more of the shared worlds than ahead (and no better on
        the mean), but not significantly? More worlds could settle it."""
        n = len(self.outcomes)
        return any(self.beats(b, a, 1.0) for a in range(n) if a not in self.dominated for b in range(n) if b != a)

    def prune_also(self, dominated: dict[int, int]) -> None:
        """Prune the moves an earlier look at fewer of the same worlds found dominated too."""
        for a, b in dominated.items():
            self.dominated.setdefault(a, b)
        self._keep_one()

    def beats(self, b: int, a: int, level: float) -> bool:
        """Does b end ahead of a in significantly more shared worlds than behind, and win at least
        as often? (A move ahead only on rank in most worlds but that wins more is a gamble.)"""
        return self.means[b] >= self.means[a] and ahead_significantly(self.outcomes[b], self.outcomes[a], level)

    def stands_over(self, b: int, a: int, level: float) -> bool:
        """Is b ahead of a on the standing right after the move in significantly more shared worlds
        than behind, and not behind it on the playouts by more than one standard error of the
        paired difference? The playouts' noise can hide a sure, small difference that the standing
        shows in every world."""
        if self.standings is None or not ahead_significantly(self.standings[b], self.standings[a], level):
            return False
        diffs = [x - y for x, y in zip(self.paired[b], self.paired[a], strict=True)]
        k = len(diffs)
        mean = sum(diffs) / k
        var = sum((x - mean) ** 2 for x in diffs) / max(1, k - 1)
        return mean >= -math.sqrt(var / k)

    def reward(self, i: int) -> float:
        """Move i's summed reward over the worlds: the search's own scoring of each end (a playout
        cut at its move limit and an impossible world are draws there, so here too)."""
        return sum(self.scores[i]) if self.scores is not None else sum(o[0] for o in self.outcomes[i])

    def kept(self) -> list[int]:
        return [i for i in range(len(self.outcomes)) if i not in self.dominated]


def screen(state: State, rng: random.Random, worlds: int = DEFAULT_WORLDS, alpha: float = DEFAULT_ALPHA,
           playout_limit: int = 2_000, deadline: float | None = None, rank_weight: float = 0.0,
           copy: bool = True, extend: int = 0, standing: bool = False, keep_invariants: bool = False) -> Screen | None:
    """Play every move of the decision in the same sampled worlds; None if the decision is too
    wide for at least FEWEST_WORLDS worlds within MAX_PLAYOUTS playouts (or has one move). Past
    `deadline` (a `time.perf_counter()`) no world is added, and None if fewer than FEWEST_WORLDS
    were played: a bot with a time budget keeps it. Each end is also scored as the search scores
    it (`rewards` at `rank_weight`). `copy=False`: `state` is already a `search_copy` (the search's
    own), used as it is and not changed.

    `extend`: up to that many more worlds when the first look leaves a move behind another but not
    significantly (`Screen.undecided`): time goes to the decisions where a second look may prune,
    such as a penalty the seat knows of but the noise of random play hides. Each look then tests
    at half of `alpha`, so a move as good as another is still pruned with probability at most
    `alpha`."""
    n = len(state.options)
    k = min(worlds, MAX_PLAYOUTS // max(1, n))
    if n < 2 or k < FEWEST_WORLDS:
        return None
    base = search_copy(state) if copy else state
    rows: list[list[Outcome]] = [[] for _ in range(n)]
    scores: list[list[float]] = [[] for _ in range(n)]
    stands: list[list[Outcome | None]] | None = [[] for _ in range(n)] if standing else None
    play = functools.partial(_play_worlds, base, rng, rows=rows, scores=scores, playout_limit=playout_limit,
                             deadline=deadline, rank_weight=rank_weight, stands=stands, keep=keep_invariants)
    if not play(k):
        return None
    more = min(extend, MAX_PLAYOUTS // n - k)
    first = Screen(rows, state.game.players, alpha / 2 if more > 0 else alpha, scores, stands)
    if more <= 0 or len(rows[0]) < k or not first.undecided():
        return first
    play(more)
    second = Screen(rows, state.game.players, alpha / 2, scores, stands)
    second.prune_also(first.dominated)
    return second


def _play_worlds(base: State, rng: random.Random, count: int, rows: list[list[Outcome]],
                 scores: list[list[float]], playout_limit: int, deadline: float | None, rank_weight: float,
                 stands: list[list[Outcome | None]] | None = None, keep: bool = False) -> bool:
    """Add `count` shared worlds to each move's row (fewer past the deadline), and to `stands` the
    standing right after each move; False if the rows then hold fewer than FEWEST_WORLDS."""
    me, n, players = base.chooser, len(rows), base.game.players
    for _ in range(count):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        world = sample_world(base, me, rng, keep)
        seed = rng.getrandbits(64)
        for i in range(n):
            d = world.clone(log=False)
            stand = None
            try:
                d.apply_index(i)
                if stands is not None:
                    stand = standing(d, me)
                d.playout(random.Random(seed).randrange, playout_limit, forced=False)
                row, score = outcome(d, me), rewards(d, rank_weight)[me]
            except RulesRuntimeError:
                score = impossible(d)[me]
                row = (score, -players)
            rows[i].append(row)
            scores[i].append(score)
            if stands is not None:
                stands[i].append(stand)
    return len(rows[0]) >= FEWEST_WORLDS


def standing(state: State, seat: int) -> Outcome | None:
    """How `seat` would end had the game ended here (`State.end_now` on a copy); None if the
    game's end cannot be run from here."""
    d = state.clone(log=False)
    return outcome(d, seat) if d.end_now() else None
