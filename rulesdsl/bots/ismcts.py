"""Information-set Monte Carlo tree search (single observer; Cowling, Powley & Whitehouse 2012).

One tree for the deciding seat's information set. Each iteration samples a world consistent with
what that seat knows, walks the tree with UCB1 among the moves that exist in that world (a move's
availability counts how often it could have been chosen), adds one node, plays on at random and
scores the end by the game's winners. Moves are keyed by their text, so "take 3" is the same edge
in every world; the other seats' moves are keyed by what they are in the sampled world.
"""

from __future__ import annotations

import math
import random
import time

from ..engine.state import State
from .worlds import playout, rewards, sample_world

DEFAULT_ITERATIONS = 300
PLAYOUT_LIMIT = 2_000


class Node:
    __slots__ = ("player", "visits", "total", "avail", "children")

    def __init__(self, player: int):
        self.player = player  # the seat whose move leads here: its rewards are summed
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict[tuple[int, str], Node] = {}


class ISMCTSBot:
    """Search within a budget of iterations, or of seconds per decision (`seconds`)."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int = DEFAULT_ITERATIONS, seconds: float | None = None,
                 exploration: float = 0.7, playout_limit: int = PLAYOUT_LIMIT):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.c = exploration
        self.playout_limit = playout_limit
        self.last_iterations = 0

    def choose(self, state: State) -> int:
        if len(state.options) <= 1:
            return 0
        me = state.chooser
        game = state.game
        base = state.clone(log=False)  # never touch the caller's state; determinize without the log
        root = Node(me)
        rng = self.rng
        c = self.c
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        done = 0
        while True:
            if deadline is not None:
                if done and time.perf_counter() >= deadline:
                    break
            elif done >= self.iterations:
                break
            done += 1
            d = sample_world(base, me, rng)
            node = root
            path = []
            while not d.over:
                n = len(d.options)
                if n == 1:
                    d.apply_index(0)  # a forced move is no decision: no node for it
                    continue
                who = d.chooser
                texts = game.option_texts(d)
                children = node.children
                untried = []
                present = []
                for i, t in enumerate(texts):
                    ch = children.get((who, t))
                    if ch is None:
                        untried.append(i)
                    else:
                        ch.avail += 1
                        present.append((i, ch))
                if untried:
                    i = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    ch = Node(who)
                    ch.avail = 1
                    children[(who, texts[i])] = ch
                    d.apply_index(i)
                    path.append(ch)
                    break
                best_i, best, best_v = -1, None, -1.0
                for i, ch in present:
                    v = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if v > best_v:
                        best_i, best, best_v = i, ch, v
                d.apply_index(best_i)
                path.append(best)
                node = best
            playout(d, rng, self.playout_limit)
            r = rewards(d)
            for ch in path:
                ch.visits += 1
                ch.total += r[ch.player]
        self.last_iterations = done
        texts = game.option_texts(base)
        best_i, best_key = 0, (-1, -1.0)
        for i, t in enumerate(texts):
            ch = root.children.get((me, t))
            if ch is not None:
                key = (ch.visits, ch.total)
                if key > best_key:
                    best_i, best_key = i, key
        return best_i
