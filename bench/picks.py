"""How the baselines draw their chance: as the engine's playout does, from `getrandbits`.

`random.Random.randrange(k)` is CPython's `_randbelow`: `getrandbits(w)` for w the bits of k, drawn
again while it is k or more. The engine's playout draws its picks so itself (`random_draw` in
rulesdsl/engine/machine.py), saving two Python calls a decision; a baseline that called randrange
would pay them and flatter the engine. So each decision of a baseline is written out as

    w = widths[k]
    i = bits(w)
    while i >= k:
        i = bits(w)

which draws what `randrange(k)` draws: the same seed plays the same game as with randrange (and as
bench/model_tempurra.py, which calls randrange). A shuffle is `random.shuffle`'s, drawn the same way.

A stand-in for the generator (bench/validate.py's, which counts or replays the decisions) needs k
itself: it sets `widths = OPTIONS`, the identity, so its `getrandbits` gets the number of options and
answers an index below it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

# Bits to draw for k options, for every k a baseline meets (a shuffle of Tempurra's 95 cards the most).
WIDTHS = tuple(k.bit_length() for k in range(128))
OPTIONS = range(1 << 30)  # a stand-in's "widths": getrandbits(k) is asked with k, the options
AND_ONE = WIDTHS[1:]  # AND_ONE[m] = WIDTHS[m + 1]: m options and one more (a `pass`), drawn as `j > m`


# For a pile of n cards, the Fisher-Yates steps (i, bits to draw for i + 1 places), i = n-1 .. 1;
# up to the most cards a baseline shuffles (Tempurra's 72 dish, 17 action, 6 indigestion cards).
STEPS = tuple(tuple((i, WIDTHS[i + 1]) for i in range(n - 1, 0, -1)) for n in range(96))


def shuffler(bits: Callable[[int], int]) -> Callable[[list], None]:
    """`random.shuffle` on the generator whose getrandbits is `bits`: the same order, fewer calls."""

    def shuffle(cards: list) -> None:
        for i, w in STEPS[len(cards)]:
            j = bits(w)
            while j > i:
                j = bits(w)
            cards[i], cards[j] = cards[j], cards[i]

    return shuffle


def picker(bits: Callable[[int], int], widths: Sequence[int]) -> Callable[[int], int]:
    """`randrange` drawn as above, as a function: for a baseline's rare decisions, where a call
    costs nothing that counts and the written-out draw would only repeat itself."""

    def pick(k: int) -> int:
        w = widths[k]
        i = bits(w)
        while i >= k:
            i = bits(w)
        return i

    return pick


def chance(seed: int, rng=None, known: list | None = None) -> tuple[
        Callable[[int], int], Sequence[int], Callable[[list], None]]:
    """(getrandbits, widths, shuffle) for one game: a `random.Random(seed)`'s, or those of `rng`,
    a stand-in with `getrandbits`, `widths` and `shuffle` (see the module's docstring). A stand-in
    with a `watch` method is shown `known`, the game's record of who knows each card, which
    bench/validate.py compares with the engine's (Tamalo's at each decision, Tempurra's at the end)."""
    if rng is None:
        bits = random.Random(seed).getrandbits
        return bits, WIDTHS, shuffler(bits)
    if known is not None and hasattr(rng, "watch"):
        rng.watch(known)
    return rng.getrandbits, rng.widths, rng.shuffle
