"""The checker's types, and the language's built-in names with the type of each.

Types are short strings: int bool str player card zone direction none any, and list[T]. The
compiler and a save's loader read them too, so they are plain data.
"""

from __future__ import annotations

INT, BOOL, STR, PLAYER, CARD, ZONE, DIRECTION, NONE, ANY = (
    "int", "bool", "str", "player", "card", "zone", "direction", "none", "any",
)
SCALARS = (INT, BOOL, STR, PLAYER, CARD)
TYPE_NAMES = {
    "int": INT, "number": INT, "bool": BOOL, "text": STR, "player": PLAYER, "card": CARD, "zone": ZONE,
    "cards": "list[card]", "players": "list[player]", "numbers": "list[int]",
}


def list_of(t: str) -> str:
    return f"list[{t}]"


def is_list(t: str) -> bool:
    return t.startswith("list[") or t == ZONE


def elem(t: str) -> str:
    if t == ZONE:
        return CARD
    return t[5:-1] if t.startswith("list[") else ANY


def describe(t: str) -> str:
    names = {
        INT: "a number", BOOL: "yes or no", STR: "a text", PLAYER: "a player", CARD: "a card",
        ZONE: "a zone", DIRECTION: "a direction", NONE: "none", ANY: "a value",
        "list[card]": "a list of cards", "list[player]": "a list of players", "list[int]": "a list of numbers",
        "list[str]": "a list of texts", "list[bool]": "a list of yes/no values", "list[any]": "an empty list",
    }
    return names.get(t, t)


def compatible(want: str, got: str) -> bool:
    """Can a value of type `got` be used where `want` is expected?"""
    if want == got or ANY in (want, got):
        return True
    if got == NONE and want in (PLAYER, CARD, INT, STR, ANY):
        return True
    if want == "list[card]" and got == ZONE:
        return True
    if is_list(want) and is_list(got):
        return compatible(elem(want), elem(got)) and NONE not in (elem(got),)
    return False


def unify(a: str, b: str) -> str | None:
    if a == b:
        return a
    if a in (ANY, NONE):
        return b
    if b in (ANY, NONE):
        return a
    if {a, b} == {ZONE, "list[card]"}:
        return "list[card]"
    if is_list(a) and is_list(b):
        e = unify(elem(a), elem(b))
        return list_of(e) if e else None
    return None


BUILTIN_VALUES = {
    "me": PLAYER,
    "others": "list[player]",
    "round": INT,
    "turn": INT,
    "direction": DIRECTION,
    "clockwise": DIRECTION,
    "counterclockwise": DIRECTION,
    "player_count": INT,
    "winners": "list[player]",
    "game_over": BOOL,
    "decider": PLAYER,
}
# name -> (minimum args, maximum args); result types are worked out in expressions.py.
BUILTIN_FUNCS = {
    "count": (1, 1), "sum": (1, 1), "min": (1, 2), "max": (1, 2), "any": (1, 1), "empty": (1, 1),
    "top": (1, 1), "bottom": (1, 1), "first": (1, 1), "last": (1, 1), "random": (1, 1),
    "next": (1, 1), "previous": (1, 1), "distinct": (1, 1), "abs": (1, 1), "owner": (1, 1),
    "place": (1, 1), "zone_of": (1, 1), "sorted": (1, 1), "knows": (2, 2),
    "consecutive": (1, 1),
}
PLAYER_BUILTIN_ATTRS = {"seat": INT}
CARD_BUILTIN_ATTRS = {"kind": STR}


def type_of_value(v: object) -> str:
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return INT
    return STR


def describe_param_type(v: object) -> str:
    return {BOOL: "yes or no", INT: "a whole number", STR: "a text"}[type_of_value(v)]


def coerce_param(raw: object, default: object) -> int | bool | str | None:
    """A --set value (text or Python value) as the parameter's type, or None if it cannot be."""
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        return {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}.get(text)
    if isinstance(default, int):
        if isinstance(raw, bool):
            return None
        if isinstance(raw, int):
            return raw
        try:
            return int(str(raw).strip())
        except ValueError:
            return None
    return str(raw)
