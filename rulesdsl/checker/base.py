"""What the checker's parts share: the errors found so far, the scopes and local slots of the code
being walked, and the tables filled for the compiler (keyed by node identity)."""

from __future__ import annotations

from collections.abc import Iterator

from .. import ast
from ..errors import MAX_ERRORS, Diagnostic, did_you_mean
from .program import CardInfo, CodeInfo, ExprInfo, KindInfo, ParamInfo, VarInfo, ZoneInfo
from .types import ANY, BUILTIN_FUNCS, BUILTIN_VALUES, NONE, TYPE_NAMES


class Scope:
    """The local names at one point of a body, each a slot and a type; a block's scope sees its parent's."""

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.names: dict[str, tuple[int, str]] = {}

    def lookup(self, name: str) -> tuple[int, str] | None:
        s: Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self) -> list[str]:
        out: list[str] = []
        s: Scope | None = self
        while s is not None:
            out.extend(s.names)
            s = s.parent
        return out


class Unit:
    """Slot allocation for one code unit."""

    def __init__(self, name: str, kind: str):
        self.name = name
        self.kind = kind  # action, procedure, hook name, define, expr
        self.nslots = 0
        self.loops = 0
        self.slot_types: dict[int, str] = {}

    def new_slot(self, t: str = ANY) -> int:
        self.nslots += 1
        self.slot_types[self.nslots - 1] = t
        return self.nslots - 1

    def bind(self, scope: Scope, name: str, slot: int, t: str) -> None:
        scope.names[name] = (slot, t)
        if self.slot_types.get(slot, ANY) in (ANY, NONE):
            self.slot_types[slot] = t


class TooManyErrors(Exception):
    """More errors than RulesError shows: checking stops."""


class CheckerBase:
    """The state of one check. Its parts (Declarations, RuleBodies, Statements, Expressions) are
    one object: a statement checks its expressions, an expression checks the define it uses on
    first use, and all of them read the game's names that Declarations collects."""

    # The game's names, set by Declarations before any body is checked.
    params: dict[str, ParamInfo]
    kinds: list[KindInfo]
    kind_by_name: dict[str, KindInfo]
    attr_types: dict[str, str]
    zones: list[ZoneInfo]
    zone_by_name: dict[str, ZoneInfo]
    cards: list[CardInfo]
    counters: list[VarInfo]
    vars: list[VarInfo]
    var_by_name: dict[str, VarInfo]
    global_names: dict[str, ast.Span]
    defines: dict[str, ExprInfo]
    _define_decls: dict[str, ast.Define]
    procedures: dict[str, CodeInfo]

    def __init__(self, files: list[ast.RulesFile], players: int | None, params: dict[str, object] | None):
        self.files = files
        self.sources = {f.path: f.source for f in files}
        self.want_players = players
        self.overrides = dict(params or {})
        self.diags: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []  # what `check` reports but lets pass
        self.types: dict[int, str] = {}
        self.refs: dict[int, tuple] = {}
        self.slots: dict[int, int | tuple[int, int, int]] = {}
        self.has_end_game = False
        self.scenario_players: dict[str, int] = {}
        self.reported: set[tuple] = set()
        self.depth = 0  # expressions being checked, one in another (through defines too)
        # The assignment each scenario `set` step stands for: kept alive, since refs is keyed by its id.
        self.step_assignments: list[ast.Assign] = []
        # Secret decisions (see Program): the tables, and the secret block being checked (its span
        # and its seat, for `simultaneously` and races), with the loops around it.
        self.secret_chooses: dict[int, tuple[int, int]] = {}
        self.secret_assigns: dict[int, int] = {}
        self.secret_clears: dict[int, tuple[int, ...]] = {}
        self.secret_reveals: dict[int, tuple] = {}
        self.secret_parts: dict[int, tuple] = {}  # a `{...}` naming a secret variable: its reference
        self.partial_shows: dict[int, str] = {}
        self.races: dict[int, tuple] = {}
        self.race_vars: list = []
        self.secret_reads: dict[int, tuple[str, ...]] = {}  # a shown expression's secret variables
        self.show_secrets: dict[str, tuple[str, ...]] = {}
        self.secret_names: dict[tuple[int, int], int] = {}  # (unit, slot) bound by a secret choose -> its id
        # (unit, slot) of a secret answer, or of a `let` made of some -> whose answers (chooser keys)
        self.secret_taint: dict[tuple[int, int], frozenset] = {}
        self.secret_ctx: tuple | None = None  # (span, seat or None, loops outside it)
        self.in_race = 0

    def error(self, span: ast.Span | None, message: str, hint: str | None = None) -> None:
        key = (span, message)
        if key in self.reported:
            return
        self.reported.add(key)
        self.diags.append(Diagnostic(span, message, hint))
        if len(self.diags) > MAX_ERRORS:  # (hints cost a look through every name: stop, as the parser does)
            raise TooManyErrors

    def fail(self, span, message, hint=None) -> str:
        self.error(span, message, hint)
        return ANY

    def _reject_builtin(self, name: str, span: ast.Span) -> bool:
        """A name declared or bound (a zone, a local, a parameter) may not hide a built-in one."""
        if name in BUILTIN_VALUES or name in BUILTIN_FUNCS or name in ("it", "players"):
            self.error(span, f"'{name}' is a built-in name", "choose another name")
            return True
        return False

    def _type_named(self, name: str, span: ast.Span) -> str | None:
        """The type a declaration names (`var x: cards`), or None, reported, if there is none."""
        t = TYPE_NAMES.get(name)
        if t is None:
            self.error(span, f"unknown type '{name}'",
                       did_you_mean(name, TYPE_NAMES) or f"types: {', '.join(TYPE_NAMES)}")
        return t

    def _once_each(self, decls: list, what: str) -> Iterator:
        """The declarations of a name not declared before; a repeated one is reported as `what`."""
        seen: set[str] = set()
        for d in decls:
            if d.name in seen:
                self.error(d.span, f"{what} '{d.name}' is declared twice")
                continue
            seen.add(d.name)
            yield d
