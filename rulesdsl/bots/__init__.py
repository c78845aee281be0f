"""Bots that play any game through the state API: they see a state and pick a legal move.

A bot may only use what its seat could know; `RandomBot` needs nothing but the number of options.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..engine.state import State


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


BOT_KINDS = {"random": RandomBot}


class BotSpecError(ValueError):
    pass


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its command-line name, such as `random`."""
    kind, _, arg = spec.strip().partition(":")
    cls = BOT_KINDS.get(kind)
    if cls is None:
        raise BotSpecError(f"unknown bot '{spec}'; bots: {', '.join(BOT_KINDS)}")
    if arg:
        raise BotSpecError(f"bot '{kind}' takes no setting (got '{arg}')")
    return cls(seed)
