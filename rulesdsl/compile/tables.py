"""The game's tables from the checked program: what each type of cell may hold, for determinization."""

from __future__ import annotations

from ..checker import ANY, BOOL, CARD, DIRECTION, INT, NONE, PLAYER, STR, ZONE, elem, is_list
from ..engine.constants import GRID, HAND, HIDDEN, OTHERS, PRIVATE, PUBLIC, STACK

SHAPE = {"stack": STACK, "hand": HAND, "grid": GRID}
VIS = {"hidden": HIDDEN, "private": PRIVATE, "public": PUBLIC, "others": OTHERS}
NO_CARD, A_CARD, CARDS = 0, 1, 2  # what a value of a type may name (see `names_cards`)
_NO_CARD_TYPES = frozenset((INT, BOOL, STR, PLAYER, DIRECTION, NONE, ANY))


def names_cards(t: str) -> int:
    """Whether a value of type `t` may name a card (A_CARD), hold cards (CARDS), or neither. A new
    type must say, or a sampled world could keep naming the real cards: an unknown one stops here."""
    if t == CARD:
        return A_CARD
    if t == ZONE or (is_list(t) and elem(t) == CARD):
        return CARDS
    if t in _NO_CARD_TYPES or (is_list(t) and elem(t) in _NO_CARD_TYPES):
        return NO_CARD  # (ANY: the items of an empty list, which never hold anything)
    raise AssertionError(f"the compiler does not know whether a value of type {t!r} can name a card")


def _card_cells(group: list, layout: dict[str, tuple[int, bool]], players: int) -> tuple[tuple[int, ...], ...]:
    """The cells of a group of variables (or counters) that may hold a card, and a list of cards."""
    found: tuple[list[int], list[int]] = ([], [])
    for v in group:
        kind = names_cards(v.type)
        if kind != NO_CARD:
            base, per_player = layout[v.name]
            found[kind - 1].extend(range(base, base + (players if per_player else 1)))
    return tuple(found[0]), tuple(found[1])
