"""What search bots share: the seats' rewards at the end, random playouts, and the copy they
search from. Worlds are sampled by `State.determinize`, from the deciding seat's knowledge only.
"""

from __future__ import annotations

import random

from ..engine.state import State
from ..errors import RulesRuntimeError


def rewards(state: State, rank_weight: float = 0.0) -> list[float]:
    """Each seat's share of the win at the end: 1/k for each of k winners, 0 for the others. A game
    that did not end (a playout cut short) counts as a draw: 1/n each. With `rank_weight` w, a
    seat's reward is (1 - w) times its share plus w times its place in the game's ranking (1 for
    first, 0 for last): a close loss is worth more than a bad one, which tells moves apart in
    the many playouts that nobody of interest wins."""
    n = state.game.players
    if not state.over:
        return [1.0 / n] * n
    out = [0.0] * n
    for p in state.winners:
        out[p] = 1.0 / len(state.winners)
    if rank_weight and state.ranking and n > 1:
        w = rank_weight
        out = [(1 - w) * r + w * (n - k) / (n - 1) for r, k in zip(out, state.ranking, strict=True)]
    return out


def playout(state: State, rng: random.Random, limit: int, rank_weight: float = 0.0) -> list[float]:
    """Random moves until the game ends or `limit` moves were played; the seats' rewards."""
    try:
        state.playout(rng.randrange, limit, forced=False)
    except RulesRuntimeError:
        return impossible(state)
    return rewards(state, rank_weight)


SEARCH_STEP_BUDGET = 1_000


def search_copy(state: State) -> State:
    """A copy to search from, without the log; it and the worlds sampled from it give up after
    SEARCH_STEP_BUDGET loop steps without a decision (not the engine's 200,000), so an impossible
    world (see `impossible`) costs milliseconds, not a second. Real games keep the engine's limit."""
    s = state.clone(log=False)
    s.step_limit = min(s.step_limit, SEARCH_STEP_BUDGET)
    return s


WORLD_TRIES = 64


def sample_world(base: State, seat: int, rng: random.Random, keep_invariants: bool = False) -> State:
    """A world for `seat` (`State.determinize`). With `keep_invariants`, one that keeps every
    invariant of the game's file, if one of WORLD_TRIES samples does: the rules promise an
    invariant of every state, so a world that breaks one is not one the seat could be in, and
    playing on in it wastes the playout (one that stalls runs SEARCH_STEP_BUDGET steps first)."""
    world = base.determinize(seat, rng, log=False)
    if keep_invariants and base.game.invariants:
        checks = [test for _, test, _, _ in base.game.invariants]
        for _ in range(WORLD_TRIES - 1):
            if _keeps(world, checks):
                break
            world = base.determinize(seat, rng, log=False)
    return world


def _keeps(world: State, checks: list) -> bool:
    try:
        return all(test(world) for test in checks)
    except RulesRuntimeError:  # (an invariant that cannot be worked out there: not a world to keep)
        return False


def impossible(state: State) -> list[float]:
    """The rewards of a sampled world the rules cannot play on (a draw). A world is sampled from
    what the seat has seen, not from what it could infer: in a game where four of a kind are laid
    down at once, no hand ever holds four, but a sampled hand may, and the game can then stall."""
    n = state.game.players
    return [1.0 / n] * n
