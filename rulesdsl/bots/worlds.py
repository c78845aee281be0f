"""Sampled worlds for search bots: what a seat does not know, dealt again at random.

`State.determinize` gives a consistent world, but the world it gives depends on where the hidden
cards really are. A bot whose choice must depend only on what its seat knows needs more: the
same random numbers must give the same world from every state the seat cannot tell apart. So the
hidden cards are first put in a canonical order (by card number, within each set of cards shuffled
together) and then dealt to the hidden places, read in table order.
"""

from __future__ import annotations

import random

from ..engine.state import State
from ..errors import RulesRuntimeError


def sample_world(state: State, player: int, rng: random.Random) -> State:
    """A copy of `state` without its log, in which the cards `player` does not know are dealt
    again at random among the places that hold such cards (only within a set of cards last
    shuffled together), and the game's own random generator is reseeded from `rng`."""
    s = state.clone(log=False)
    bit = 1 << player
    known, group = state.known, state.group
    hidden: dict[int, list[int]] = {}  # shuffle group -> its hidden cards, in table order
    for z in state.zones:
        for c in z:
            if c is not None and not known[c] & bit:
                cards = hidden.get(group[c])
                if cards is None:
                    hidden[group[c]] = [c]
                else:
                    cards.append(c)
    rename: dict[int, int] = {}
    for cards in hidden.values():
        if len(cards) > 1:
            ids = sorted(cards)
            rng.shuffle(ids)
            rename.update(zip(cards, ids, strict=True))
    if rename:
        s._rename(rename, player)
    s.rng = rng.getrandbits(64)
    return s


def rewards(state: State) -> list[float]:
    """Each seat's share of the win at the end: 1/k for each of k winners, 0 for the others. A game
    that did not end (a playout cut short) counts as a draw: 1/n each."""
    n = state.game.players
    if not state.over:
        return [1.0 / n] * n
    out = [0.0] * n
    for p in state.winners:
        out[p] = 1.0 / len(state.winners)
    return out


def playout(state: State, rng: random.Random, limit: int) -> list[float]:
    """Random moves until the game ends or `limit` moves were played; the seats' rewards."""
    randrange = rng.randrange
    apply = state.apply_index
    try:
        for _ in range(limit):
            if state.over:
                break
            n = len(state.options)
            apply(randrange(n) if n > 1 else 0)
    except RulesRuntimeError:
        return impossible(state)
    return rewards(state)


SEARCH_STEP_BUDGET = 5_000


def search_copy(state: State) -> State:
    """A copy to search from, without the log; it and the worlds sampled from it give up after
    SEARCH_STEP_BUDGET loop steps without a decision (not the engine's 200,000), so an impossible
    world (see `impossible`) costs milliseconds, not a second. Real games keep the engine's limit."""
    s = state.clone(log=False)
    s.step_limit = min(s.step_limit, SEARCH_STEP_BUDGET)
    return s


def impossible(state: State) -> list[float]:
    """The rewards of a sampled world the rules cannot play on (a draw). A world is sampled from
    what the seat has seen, not from what it could infer: in a game where four of a kind are laid
    down at once, no hand ever holds four, but a sampled hand may, and the game can then stall."""
    n = state.game.players
    return [1.0 / n] * n
