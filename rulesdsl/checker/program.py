"""The checked program, the checker's output and the compiler's input: the declarations with
their types worked out, plus side tables keyed by node identity."""

from __future__ import annotations

import attrs

from .. import ast
from ..errors import Diagnostic
from .types import ANY


@attrs.define
class ParamInfo:
    name: str
    default: int | bool | str
    low: int | None
    high: int | None
    value: int | bool | str
    span: ast.Span


@attrs.define
class KindInfo:
    index: int
    name: str
    attrs: tuple[str, ...]
    shown: ast.Template | None
    span: ast.Span


@attrs.define
class CardInfo:
    kind: int
    values: dict[str, int | bool | str]
    zone: int


@attrs.define
class ZoneInfo:
    index: int
    name: str
    per_player: bool
    shape: str
    visibility: str
    refill: int | None
    keep: int
    span: ast.Span


@attrs.define
class VarInfo:
    index: int
    name: str
    type: str
    per_player: bool
    counter: bool
    init: ast.Expr
    span: ast.Span
    secret: bool = False  # `var ... secret`: who knows each cell's value is kept (State.secrets)


@attrs.define
class CodeInfo:
    """A block of statements that runs with its own locals: a procedure, action or hook."""

    name: str
    body: tuple[ast.Stmt, ...]
    params: tuple[tuple[str, str], ...] = ()
    nlocals: int = 0
    cond: ast.Expr | None = None
    span: ast.Span | None = None
    slot_types: dict[int, str] = attrs.Factory(dict)


@attrs.define
class ExprInfo:
    """An expression evaluated with its own locals (a define, an end condition, a rank key)."""

    name: str
    expr: ast.Expr
    type: str = ANY
    params: tuple[tuple[str, str], ...] = ()
    nlocals: int = 0
    it_slot: int | None = None
    span: ast.Span | None = None


@attrs.define
class ScenarioInfo:
    """A scenario, checked: its setting (players, seed, parameters) and its steps, whose
    expressions are checked with the player names (alice, bob, ...) as values."""

    name: str
    span: ast.Span
    players: int
    seed: int
    params: dict[str, object]
    steps: list[tuple[ast.Step, ExprInfo | None]]


@attrs.define
class Program:
    name: str
    files: dict[str, str]
    players: int
    min_players: int
    max_players: int
    params: dict[str, ParamInfo]
    kinds: list[KindInfo]
    attr_types: dict[str, str]
    cards: list[CardInfo]
    zones: list[ZoneInfo]
    counters: list[VarInfo]
    vars: list[VarInfo]
    defines: dict[str, ExprInfo]
    shows: list[str]
    procedures: dict[str, CodeInfo]
    actions: list[CodeInfo]
    hooks: dict[str, CodeInfo]
    round_ends: list[ExprInfo]
    game_ends: list[ExprInfo]
    rank: list[tuple[str, ExprInfo]]
    winners: ExprInfo | None
    statistics: list[ExprInfo]
    invariants: list[ExprInfo]
    scenarios: list[ScenarioInfo]
    types: dict[int, str]
    refs: dict[int, tuple]
    slots: dict[int, int | tuple[int, int, int]]
    has_end_game: bool
    warnings: list[Diagnostic]  # what `check` prints and lets pass
    # Secret decisions (`secretly`, `simultaneously`, `race`), by node identity: per secret choose
    # the slots of its chooser and its options; per assignment of one's answer to a secret variable
    # that choose's id; per secret block the slots it binds (set to none as it ends); per
    # `reveal`/`show ... to` of a secret variable its reference; per race (its hidden variable,
    # the slots of its seat, list, position and order).
    secret_chooses: dict[int, tuple[int, int]] = attrs.Factory(dict)
    secret_assigns: dict[int, int] = attrs.Factory(dict)
    secret_clears: dict[int, tuple[int, ...]] = attrs.Factory(dict)
    secret_reveals: dict[int, tuple] = attrs.Factory(dict)
    # Per `{...}` of a `say` or label that names a `secret` variable as a whole, its reference.
    secret_parts: dict[int, tuple] = attrs.Factory(dict)
    # Per `show CARDS.attr to P` (partial knowledge), the attribute shown.
    partial_shows: dict[int, str] = attrs.Factory(dict)
    races: dict[int, tuple] = attrs.Factory(dict)
    # What is shown of a value worked out from `secret` variables: per `{...}` of a `say` or a
    # label (by node identity) and per `show` line, the secret variables it may read, directly or
    # through defines. Such a value prints as `?` to a seat that does not know them all.
    secret_reads: dict[int, tuple[str, ...]] = attrs.Factory(dict)
    show_secrets: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    # The game in player language (descriptions.py): per `about "..."`, (kind, name, text with the
    # parameters filled in, (file, first line, last line) of what it describes), in file order;
    # and the display names, declared name -> the words the table shows.
    about: list[tuple[str, str, str, tuple[str, int, int]]] = attrs.Factory(list)
    display_names: dict[str, str] = attrs.Factory(dict)
