"""Information-set Monte Carlo tree search (single observer; Cowling, Powley & Whitehouse 2012).

One tree for the deciding seat's information set. Each iteration samples a world consistent with
what that seat knows, walks the tree with UCB1 among the moves that exist in that world (a move's
availability counts how often it could have been chosen), adds one node, plays on at random and
scores the end by the game's winners. Moves are keyed by their text, so "take 3" is the same edge
in every world; the other seats' moves are keyed by what they are in the sampled world.

Two options make the stronger bot (`ismcts2`): `screen_worlds` first prunes the root's dominated
moves (screen.py), and their shared-world playouts start the root's statistics; `rank_weight`
scores a playout's end by the ranking too, not only by who won.
"""

from __future__ import annotations

import math
import random
import time

from ..engine.game import Game
from ..engine.state import State
from ..errors import RulesRuntimeError
from .mast import Mast
from .screen import screen
from .worlds import impossible, rewards, sample_world, search_copy

DEFAULT_ITERATIONS = 200
DEFAULT_SECONDS = 0.9  # the default budget also stops here, so a move never takes a second
PLAYOUT_LIMIT = 2_000


class Node:
    __slots__ = ("player", "visits", "total", "avail", "children")

    def __init__(self, player: int):
        self.player = player  # the seat whose move leads here: its rewards are summed
        self.visits = 0
        self.total = 0.0
        self.avail = 1
        self.children: dict[tuple[int, str], Node] = {}


class ISMCTSBot:
    """Search within a budget of iterations, of seconds per decision, or both (whichever ends first)."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int | None = DEFAULT_ITERATIONS,
                 seconds: float | None = None, exploration: float = 0.7, playout_limit: int = PLAYOUT_LIMIT,
                 screen_worlds: int = 0, rank_weight: float = 0.0, early_stop: bool = False,
                 reject_impossible: bool = False, screen_extend: int = 0, mast: float = 0.0,
                 mast_others: float | None = None, standing: bool = False, keep_invariants: bool = False):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.c = exploration
        self.playout_limit = playout_limit
        self.screen_worlds = screen_worlds
        self.rank_weight = rank_weight
        self.last_iterations = 0
        self.last_pruned: list[str] = []  # the texts of the moves the last screen pruned
        # The last decision's root: each searched move's text -> (visits, mean reward to the seat).
        # The chosen move's mean is what the bot expects of the game: a diagnosis of its model.
        self.last_values: dict[str, tuple[int, float]] = {}
        self.allowed: set[str] | None = None  # while deciding: the root's moves the screen kept
        self.early_stop = early_stop
        self.reject_impossible = reject_impossible
        self.keep_invariants = keep_invariants  # worlds keep the game's invariants (worlds.sample_world)
        self.screen_extend = screen_extend  # more worlds for a screen left undecided (screen.screen's extend)
        # Playouts by move averages (mast.py): the deciding seat at epsilon `mast`, the others at
        # `mast_others` (the same if None; 1 is uniformly random).
        self.mast = Mast(mast, mast_others) if mast else None
        self._steps: list[tuple[tuple, int]] = []  # with MAST: this iteration's (move key, mover)
        self.last_rejected = 0  # the last decision's iterations in impossible worlds, not counted
        self._added: tuple[dict, tuple[int, str]] | None = None  # the node the iteration added
        self._me = -1  # the seat deciding
        # The screen also judges an optional decision (a `may choose`: an opportunity taken or
        # passed) by the standing right after each move (screen.py; docs/bots.md says why only there).
        self.standing = standing

    def choose(self, state: State) -> int:
        self.last_pruned, self.allowed, self.last_rejected, self.last_values = [], None, 0, {}  # (a forced move too)
        if len(state.options) <= 1:
            return 0
        me = self._me = state.chooser
        game = state.game
        base = search_copy(state)  # never touch the caller's state; sample worlds without the log
        root = Node(me)
        start = time.perf_counter()
        deadline = start + self.seconds if self.seconds is not None else None
        if self.mast is not None:
            self.mast.decay()
        if self.screen_worlds:
            self._screen(base, root, game)
            if self.allowed is not None and len(self.allowed) == 1:
                return next(i for i, t in enumerate(game.option_texts(base)) if t in self.allowed)
        done = 0
        while self.iterations is None or done < self.iterations:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            if self.early_stop and done and done % 16 == 0 and self._settled(root, done, start, deadline):
                break
            done += 1
            d = sample_world(base, me, self.rng, self.keep_invariants)
            path: list[Node] = []
            self._added = None
            self._steps = []
            try:
                r = self._iterate(d, root, path, game)
            except RulesRuntimeError:
                if self.reject_impossible:
                    self._forget(path)
                    continue
                r = impossible(d)
            for node in path:
                node.visits += 1
                node.total += r[node.player]
            if self.mast is not None:
                self.mast.learn(self._steps, r)
        self.last_iterations = done
        best_i, best_key = 0, (-1, -1.0)
        values = self.last_values
        for i, t in enumerate(game.option_texts(base)):
            node = root.children.get((me, t))
            if node is None:
                continue
            if node.visits:
                values[t] = (node.visits, node.total / node.visits)
            if (node.visits, node.total) > best_key:
                best_i, best_key = i, (node.visits, node.total)
        return best_i

    def _settled(self, root: Node, done: int, start: float, deadline: float | None) -> bool:
        """Can the rest of the budget no longer change the move? The move played is the root's
        most visited; if its lead over the next is more than the iterations left (by count, or
        at the rate so far until the deadline), the rest would be spent for nothing."""
        left = self.iterations - done if self.iterations is not None else None
        if deadline is not None:
            now = time.perf_counter()
            by_time = int(done * (deadline - now) / max(now - start, 1e-9)) + 1
            left = by_time if left is None else min(left, by_time)
        if left is None:
            return False
        first = second = 0
        for child in root.children.values():
            if child.visits > first:
                first, second = child.visits, first
            elif child.visits > second:
                second = child.visits
        return first - second > left

    def _forget(self, path: list[Node]) -> None:
        """An impossible world (see `worlds.impossible`) is not one the seat could be in: with
        `reject_impossible`, its iteration counts for nothing (the node it added goes again)."""
        self.last_rejected += 1
        if self._added is not None:
            children, key = self._added
            del children[key]

    def _screen(self, base: State, root: Node, game: Game) -> None:
        """Prune the root's dominated moves; each kept move's node starts with its screen playouts."""
        half = time.perf_counter() + self.seconds / 2 if self.seconds is not None else None
        found = screen(base, self.rng, self.screen_worlds, playout_limit=self.playout_limit, deadline=half,
                       rank_weight=self.rank_weight, copy=False, extend=self.screen_extend,
                       standing=self.standing and game.decisions[base.pending].optional,
                       keep_invariants=self.keep_invariants)
        if found is None:
            return
        texts = game.option_texts(base)
        self.last_pruned = [texts[i] for i in found.dominated]
        kept = found.kept()
        self.allowed = {texts[i] for i in kept}
        me = base.chooser
        for i in kept:
            child = root.children.setdefault((me, texts[i]), Node(me))
            child.visits += found.worlds
            child.avail += found.worlds
            child.total += found.reward(i)

    def _iterate(self, d: State, node: Node, path: list[Node], game: Game) -> list[float]:
        """Select down the tree in world `d`, expand one node, play out: the seats' rewards."""
        rng, c = self.rng, self.c
        forced = 0
        while not d.over:
            if len(d.options) == 1:
                # A forced move is no decision: no node for it. A world can offer them without end
                # (every seat passing forever, in a world that cannot be), which no step budget
                # sees, since each is a decision: past the playout limit, a playout cut short.
                forced += 1
                if forced > self.playout_limit:
                    return rewards(d, self.rank_weight)
                d.apply_index(0)
                continue
            who = d.chooser
            texts = game.option_texts(d)
            children = node.children
            untried = []
            present = []
            allowed = self.allowed if not path else None  # the root's screen
            if allowed is not None and allowed.isdisjoint(texts):
                allowed = None  # (a world whose moves read as none the screen kept: no filter)
            for i, t in enumerate(texts):
                if allowed is not None and t not in allowed:
                    continue
                child = children.get((who, t))
                if child is None:
                    untried.append(i)
                else:
                    child.avail += 1
                    present.append((i, child))
            if untried:
                i = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = children[(who, texts[i])] = Node(who)
                self._added = (children, (who, texts[i]))
                path.append(child)  # (before the move: a move that fails still has its node counted)
                self._note(d, i)
                d.apply_index(i)
                break
            best_i, best, best_v = -1, node, -1.0
            for i, child in present:
                v = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if v > best_v:
                    best_i, best, best_v = i, child, v
            path.append(best)
            node = best
            self._note(d, best_i)
            d.apply_index(best_i)
        if self.mast is not None:
            self.mast.play(d, rng, self.playout_limit, self._steps, self._me)
        else:
            d.playout(rng.randrange, self.playout_limit, forced=False)  # (an impossible world raises)
        return rewards(d, self.rank_weight)

    def _note(self, d: State, i: int) -> None:
        if self.mast is not None:
            self._steps.append(((d.pending, d.options[i]), d.chooser))
