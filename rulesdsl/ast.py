"""The syntax tree of a rules file: small frozen nodes, each carrying the source span it came from.

Everything after the parser sees these nodes and never Lark's tree, so every later error can point
at a file, a line and a column.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Span:
    """Where a node was written: 1-based line and column, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Span("<builtin>", 0, 0, 0, 0)


@attrs.frozen(eq=False)
class Node:
    # eq=False: nodes are compared by identity, so the checker can key tables by node.
    span: Span = attrs.field(kw_only=True, repr=False)


# ---------------------------------------------------------------- expressions


@attrs.frozen(eq=False)
class Expr(Node):
    pass


@attrs.frozen(eq=False)
class IntLit(Expr):
    value: int


@attrs.frozen(eq=False)
class StrLit(Expr):
    value: str


@attrs.frozen(eq=False)
class BoolLit(Expr):
    value: bool


@attrs.frozen(eq=False)
class NoneLit(Expr):
    pass


@attrs.frozen(eq=False)
class Name(Expr):
    id: str


@attrs.frozen(eq=False)
class PlayersExpr(Expr):
    """`players` (seat order) or `players from P` (the turn order starting at P)."""

    start: Expr | None


@attrs.frozen(eq=False)
class ListLit(Expr):
    items: tuple[Expr, ...]


@attrs.frozen(eq=False)
class Attr(Expr):
    obj: Expr
    name: str
    name_span: Span


@attrs.frozen(eq=False)
class Call(Expr):
    func: str
    args: tuple[Expr, ...]


@attrs.frozen(eq=False)
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


@attrs.frozen(eq=False)
class Binary(Expr):
    op: str  # + - * / % and or == != < <= > >= in
    left: Expr
    right: Expr


@attrs.frozen(eq=False)
class IsKind(Expr):
    operand: Expr
    kind: str
    kind_span: Span
    negate: bool


@attrs.frozen(eq=False)
class Range(Expr):
    low: Expr
    high: Expr


@attrs.frozen(eq=False)
class Where(Expr):
    """`S where C`: the items of S for which C holds, each bound to `it` in C."""

    seq: Expr
    cond: Expr


@attrs.frozen(eq=False)
class IfExpr(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@attrs.frozen(eq=False)
class Match(Expr):
    """`match x { "A": 1, "K": 13, else: 0 }`: the value of the first case equal to x."""

    subject: Expr
    cases: tuple[tuple[int | bool | str, Expr], ...]
    default: Expr | None


@attrs.frozen(eq=False)
class Template(Node):
    """A string with `{expr}` holes, as in `say` and in a card kind's `shown` text."""

    parts: tuple[str | Expr, ...]


# ---------------------------------------------------------------- statements


@attrs.frozen(eq=False)
class Stmt(Node):
    pass


@attrs.frozen(eq=False)
class Move(Stmt):
    what: Expr
    to: Expr
    at: Expr | None


@attrs.frozen(eq=False)
class MoveAll(Stmt):
    source: Expr
    to: Expr


@attrs.frozen(eq=False)
class Draw(Stmt):
    count: Expr
    source: Expr
    to: Expr


@attrs.frozen(eq=False)
class Deal(Stmt):
    count: Expr
    source: Expr
    zone: str
    zone_span: Span


@attrs.frozen(eq=False)
class Shuffle(Stmt):
    zone: Expr


@attrs.frozen(eq=False)
class Reveal(Stmt):
    what: Expr


@attrs.frozen(eq=False)
class ShowTo(Stmt):
    what: Expr
    who: Expr


@attrs.frozen(eq=False)
class Swap(Stmt):
    first: Expr
    second: Expr


@attrs.frozen(eq=False)
class Let(Stmt):
    name: str
    value: Expr
    type: str | None = None
    type_span: Span | None = None


@attrs.frozen(eq=False)
class Assign(Stmt):
    target: tuple[str, ...]
    op: str  # "=", "+=", "-="
    value: Expr


@attrs.frozen(eq=False)
class If(Stmt):
    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...] | None


@attrs.frozen(eq=False)
class ForEach(Stmt):
    name: str
    seq: Expr
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class While(Stmt):
    cond: Expr
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class Repeat(Stmt):
    count: Expr
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class Choose(Stmt):
    """A decision: NAME takes one of the options of `domain`, chosen by `by` (default: `me`)."""

    name: str
    domain: Expr
    by: Expr | None
    label: str | None
    optional: bool
    pass_label: str | None = None  # the text of the option to decline, for `may choose` ("pass")
    # The labels as templates, only when they hold `{...}` values (filled in at each ask), and
    # what `check` warns about them (a `{` that shows as written).
    label_text: Template | None = None
    pass_text: Template | None = None
    warnings: tuple = ()


@attrs.frozen(eq=False)
class CallStmt(Stmt):
    func: str
    args: tuple[Expr, ...]


@attrs.frozen(eq=False)
class End(Stmt):
    what: str  # turn, round, game


@attrs.frozen(eq=False)
class ReverseDirection(Stmt):
    pass


@attrs.frozen(eq=False)
class NextPlayer(Stmt):
    player: Expr


@attrs.frozen(eq=False)
class ContinueFrom(Stmt):
    player: Expr


@attrs.frozen(eq=False)
class Say(Stmt):
    text: Template


@attrs.frozen(eq=False)
class Break(Stmt):
    pass


@attrs.frozen(eq=False)
class Secretly(Stmt):
    """`secretly { ... }`: every `choose` in it is answered in secret. `seat` is the loop's name
    when it stands for `simultaneously for each SEAT in ...` (each choose is that seat's)."""

    body: tuple[Stmt, ...]
    seat: str | None = None


@attrs.frozen(eq=False)
class Race(Stmt):
    """`race for each NAME in SEQ [at random] { may choose ... by NAME; ... }`: every seat answers
    the leading `may choose` in secret; then those who acted, in SEQ's order (or a random one),
    each in turn has the answer revealed and runs the rest, until a `break`."""

    name: str
    seq: Expr
    random: bool
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class Return(Stmt):
    pass


# ---------------------------------------------------------------- declarations


@attrs.frozen(eq=False)
class Decl(Node):
    # `about "..."` before it: what it is, in player language (`rulesdsl rules`, `help MOVE`).
    about: Template | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(eq=False)
class GameName(Decl):
    name: str


@attrs.frozen(eq=False)
class Players(Decl):
    low: int
    high: int
    default: int | None


@attrs.frozen(eq=False)
class Param(Decl):
    name: str
    value: int | bool | str
    low: int | None
    high: int | None


@attrs.frozen(eq=False)
class CardKind(Decl):
    name: str
    attrs: tuple[str, ...]
    shown: Template | None


@attrs.frozen(eq=False)
class CardCount(Node):
    count: int
    kind: str
    values: tuple[int | bool | str, ...]


@attrs.frozen(eq=False)
class Cards(Decl):
    zone: str
    zone_span: Span
    counts: tuple[CardCount, ...]


@attrs.frozen(eq=False)
class ZoneOption(Node):
    word: str  # a shape or visibility word, or "refill"
    source: str | None = None
    keep: int = 0


@attrs.frozen(eq=False)
class Zone(Decl):
    name: str
    per_player: bool
    options: tuple[ZoneOption, ...]
    display: str | None = attrs.field(default=None, kw_only=True)  # `as "..."`: its name at the table


@attrs.frozen(eq=False)
class Counter(Decl):
    name: str
    per_player: bool
    init: Expr
    display: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(eq=False)
class Var(Decl):
    name: str
    type: str | None
    type_span: Span | None
    per_player: bool
    init: Expr
    secret: bool = False  # `secret`: who knows its value is kept per cell (a secret choose's answer)
    display: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(eq=False)
class TypedParam(Node):
    name: str
    type: str


@attrs.frozen(eq=False)
class Define(Decl):
    name: str
    params: tuple[TypedParam, ...] | None
    body: Expr
    display: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(eq=False)
class Show(Decl):
    names: tuple[Name, ...]


@attrs.frozen(eq=False)
class Procedure(Decl):
    name: str
    params: tuple[TypedParam, ...]
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class Action(Decl):
    name: str
    cond: Expr | None
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class Hook(Decl):
    """A block the engine runs at a fixed point: setup, round start/end, turn start/end, game end."""

    when: str
    body: tuple[Stmt, ...]


@attrs.frozen(eq=False)
class EndsWhen(Decl):
    what: str  # round or game
    cond: Expr


@attrs.frozen(eq=False)
class RankKey(Node):
    order: str  # lowest or highest
    key: Expr


@attrs.frozen(eq=False)
class Rank(Decl):
    keys: tuple[RankKey, ...]


@attrs.frozen(eq=False)
class Winners(Decl):
    expr: Expr


@attrs.frozen(eq=False)
class Statistic(Decl):
    """A value worked out when a game ends, averaged over games by `rulesdsl simulate`."""

    name: str
    expr: Expr


@attrs.frozen(eq=False)
class Invariant(Decl):
    """A condition that must hold after every move; checked by `rulesdsl test`."""

    name: str
    expr: Expr


@attrs.frozen(eq=False)
class Step(Node):
    """One line of a scenario: `kind` says which (players, seed, param, put, put_top, turn, set,
    play, expect, expect_illegal, expect_moves); the other fields hold what it needs."""

    kind: str
    value: int | bool | str | None = None
    name: str | None = None
    texts: tuple[str, ...] = ()
    expr: Expr | None = None
    target: tuple[str, ...] = ()


@attrs.frozen(eq=False)
class Scenario(Decl):
    name: str
    steps: tuple[Step, ...]


@attrs.frozen(eq=False)
class Import(Decl):
    path: str
    prelude: bool = False  # `import prelude "NAME"`: a library's prelude by name, never a path


@attrs.frozen(eq=False)
class Extends(Decl):
    """`extends "base.rules"`: this file is a variant of that one."""

    path: str


@attrs.frozen(eq=False)
class Replace(Decl):
    """`replace DECL` in a variant: DECL takes the place of the base's declaration of that name."""

    decl: Decl


@attrs.frozen(eq=False)
class Remove(Decl):
    """`remove action skip` in a variant: the base's declaration is dropped."""

    key: tuple
    words: str  # as written, for messages


def decl_key(d: Decl) -> tuple | None:
    """What a declaration is the declaration *of*, for a variant to replace or remove it."""
    named = {Param: "param", CardKind: "card", Zone: "zone", Counter: "counter", Var: "var", Define: "define",
             Procedure: "procedure", Action: "action", Statistic: "statistic", Invariant: "invariant",
             Scenario: "scenario"}
    for cls, kind in named.items():
        if isinstance(d, cls):
            return (kind, d.name)
    if isinstance(d, Cards):
        return ("cards", d.zone)
    if isinstance(d, Hook):
        return ("hook", d.when)
    if isinstance(d, EndsWhen):
        return ("ends", d.what)
    if isinstance(d, GameName):
        return ("game",)
    if isinstance(d, Players):
        return ("players",)
    if isinstance(d, Rank):
        return ("rank",)
    if isinstance(d, Winners):
        return ("winners",)
    return None


def key_words(key: tuple) -> str:
    """A key as a reader would write it: `action skip`, `round start`, `game ends when`."""
    kind = key[0]
    if kind == "hook":
        return key[1]
    if kind == "ends":
        return f"{key[1]} ends when"
    if kind == "cards":
        return f"cards in {key[1]}"
    if kind == "scenario":
        return f'scenario "{key[1]}"'
    if kind == "rank":
        return "rank by"
    if kind == "winners":
        return "winners are"
    return " ".join(str(k) for k in key)


@attrs.frozen(eq=False)
class RulesFile(Node):
    path: str
    source: str
    decls: tuple[Decl, ...]
