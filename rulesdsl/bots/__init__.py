"""Bots that play any game through the state API: they see a state and pick a legal move.

A bot may only use what its seat could know: `RandomBot` needs nothing but the number of options;
the search bots look ahead only in worlds sampled from the deciding seat's knowledge
(`State.determinize`), never in the real deal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from ..engine.state import State
from .greedy import DEFAULT_SAMPLES, GreedyBot
from .ismcts import DEFAULT_ITERATIONS, DEFAULT_SECONDS, ISMCTSBot
from .screen import DEFAULT_WORLDS, FEWEST_WORLDS


class Bot(Protocol):
    name: str

    def choose(self, state: State) -> int:
        """The index of the move to play, among `state.legal_moves()`."""
        ...


class RandomBot:
    """Uniformly random among the legal moves (each distinct outcome once, so duplicates don't weigh)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        return self.rng.randrange(state.num_moves())


class BotSpecError(ValueError):
    pass


def _count(kind: str, arg: str, what: str) -> int:
    try:
        n = int(arg)
    except ValueError:
        n = 0
    if n < 1:
        raise BotSpecError(f"bot '{kind}:{arg}': {what} must be a whole number of at least 1")
    return n


def _random(arg: str, seed: int | None) -> Bot:
    if arg:
        raise BotSpecError(f"bot 'random' takes no setting (got '{arg}')")
    return RandomBot(seed)


def _search(kind: str, arg: str, seed: int | None, **options) -> ISMCTSBot:
    if not arg:
        return ISMCTSBot(seed, seconds=DEFAULT_SECONDS, **options)
    if arg.endswith("s"):
        try:
            secs = float(arg[:-1])
        except ValueError:
            secs = 0.0
        if not 0 < secs <= 3600:
            raise BotSpecError(f"bot '{kind}:{arg}': a time budget is seconds per move, such as {kind}:0.5s")
        return ISMCTSBot(seed, iterations=None, seconds=secs, **options)
    return ISMCTSBot(seed, iterations=_count(kind, arg, "the iterations per move"), **options)


def _ismcts(arg: str, seed: int | None) -> Bot:
    return _search("ismcts", arg, seed)


RANK_WEIGHT = 0.3  # ismcts2's weight of the ranking in a playout's reward (see worlds.rewards)
MAST_EPSILON = 0.4  # ismcts2's playouts: a random move this often, else the best move average (mast.py)
MAST_OTHERS = None  # the other seats' epsilon: the same (1.0, random others, helped one game and cost another)


def _ismcts2(arg: str, seed: int | None) -> Bot:
    bot = _search("ismcts2", arg, seed, screen_worlds=DEFAULT_WORLDS, rank_weight=RANK_WEIGHT, early_stop=True,
                  reject_impossible=True, screen_extend=DEFAULT_WORLDS, mast=MAST_EPSILON,
                  mast_others=MAST_OTHERS, standing=True, keep_invariants=True)
    if bot.seconds is None and bot.iterations is not None:
        # A budget of iterations scales the screen too (a world a move for every 4 iterations), so
        # `ismcts2:20` is a small bot, not a screen of 48 worlds with a small search after it.
        bot.screen_worlds = bot.screen_extend = max(FEWEST_WORLDS, min(DEFAULT_WORLDS, bot.iterations // 4))
    bot.name = "ismcts2"
    return bot


def _greedy(arg: str, seed: int | None) -> Bot:
    return GreedyBot(seed, samples=_count("greedy", arg, "the sampled worlds per move") if arg else DEFAULT_SAMPLES)


BOT_KINDS: dict[str, Callable[[str, int | None], Bot]] = {
    "random": _random, "greedy": _greedy, "ismcts": _ismcts, "ismcts2": _ismcts2}
BOT_HELP = (f"random, greedy[:WORLDS] (default {DEFAULT_SAMPLES}), "
            f"ismcts[:ITERATIONS] (default {DEFAULT_ITERATIONS}, and at most {DEFAULT_SECONDS} s) or ismcts:SECONDSs, "
            "ismcts2 (the same, with dominated moves pruned) and its :ITERATIONS or :SECONDSs")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its command-line name: `random`, `greedy`, `greedy:4`, `ismcts`, `ismcts:200`, `ismcts:0.5s`."""
    kind, _, arg = spec.strip().partition(":")
    make = BOT_KINDS.get(kind.strip())
    if make is None:
        raise BotSpecError(f"unknown bot '{spec.strip()}'; bots: {BOT_HELP}")
    return make(arg.strip(), seed)


__all__ = ["BOT_KINDS", "Bot", "BotSpecError", "GreedyBot", "ISMCTSBot", "RandomBot", "make_bot"]
