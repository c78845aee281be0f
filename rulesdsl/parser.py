"""Text to syntax tree: Lark's LALR parser, a Transformer that builds `ast` nodes, located errors.

The parse tree never leaves this module. A file that does not parse raises `RulesError` with
every syntax error found (each top-level declaration is parsed on its own after the first
failure, so one typo does not hide the next).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import attrs
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast
from .errors import MAX_ERRORS, Diagnostic, RulesError

GRAMMAR = Path(__file__).with_name("grammar.lark")

# How deep the syntax tree may nest (declarations, blocks, statements, expressions): every later
# stage walks it recursively, and the generated Python must stay within Python's own limits.
# The seed games nest at most 14 levels; a deeper rule is split with `define` or `procedure`.
MAX_DEPTH = 64
# The longest number literal, in digits (Python refuses to read one of more than 4,300).
MAX_DIGITS = 100

# Words that begin a top-level declaration; used to split a broken file into declarations.
DECL_WORDS = (
    "game", "players", "param", "card", "cards", "zone", "counter", "var", "define", "show", "procedure",
    "action", "setup", "round", "turn", "rank", "winners", "statistic", "invariant", "scenario", "import",
    "extends", "replace", "remove", "about",
)

# What a terminal looks like to a person reading an error.
TERMINAL_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a quoted string",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COLON": "':'",
    "DOT": "'.'",
    "EQUAL": "'='",
    "COMPARE": "a comparison",
    "AUGOP": "'+=' or '-='",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "PERCENT": "'%'",
    "$END": "the end of the file",
}


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "expr"],
        cache=True,
    )


def _chosen_by(body: tuple, seat: str) -> tuple:
    """The statements of a `simultaneously` block with each `choose` that names no chooser made
    the loop's seat's (`by SEAT`), in ifs and loops too: each seat answers its own question."""
    out = []
    for s in body:
        if isinstance(s, ast.Choose) and s.by is None:
            s = attrs.evolve(s, by=ast.Name(seat, span=s.span))
        elif isinstance(s, ast.If):
            s = attrs.evolve(s, branches=tuple((c, _chosen_by(b, seat)) for c, b in s.branches),
                             orelse=None if s.orelse is None else _chosen_by(s.orelse, seat))
        elif isinstance(s, ast.ForEach):
            s = attrs.evolve(s, body=_chosen_by(s.body, seat))
        out.append(s)
    return tuple(out)


class _Build(Transformer):
    """Lark tree to ast nodes. Each method receives the rule's meta (positions) and children."""

    def __init__(self, path: str, line_offset: int = 0, col_offset: int = 0):
        super().__init__()
        self.path = path
        self.line_offset = line_offset
        self.col_offset = col_offset

    # -- helpers
    def span(self, meta) -> ast.Span:
        if getattr(meta, "empty", True):
            return ast.Span(self.path, 0, 0, 0, 0)
        return self._mk(meta.line, meta.column, meta.end_line, meta.end_column)

    def tspan(self, tok: Token) -> ast.Span:
        return self._mk(tok.line, tok.column, tok.end_line, tok.end_column)

    def _mk(self, line, col, end_line, end_col) -> ast.Span:
        # Templates are parsed from inside a string: shift their positions onto the file.
        if self.line_offset or self.col_offset:
            if line == 1:
                col += self.col_offset
            if end_line == 1:
                end_col += self.col_offset
            line += self.line_offset
            end_line += self.line_offset
        return ast.Span(self.path, line, col, end_line, end_col)

    def template(self, tok: Token, warnings: list[Diagnostic] | None = None) -> ast.Template:
        return parse_template(unquote(tok), self.path, tok.line, tok.column + 1, self.tspan(tok), warnings)

    def label(self, tok: Token | None, warnings: list[Diagnostic]) -> ast.Template | None:
        """A `choose` label's values, or None for a label that holds none (it costs nothing)."""
        if tok is None or "{" not in tok:
            return None
        t = self.template(tok, warnings)
        return t if any(isinstance(part, ast.Expr) for part in t.parts) else None

    # -- declarations
    @v_args(meta=True)
    def start(self, meta, children):
        return list(children)

    @v_args(meta=True)
    def game_decl(self, meta, c):
        return ast.GameName(unquote(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def players_decl(self, meta, c):
        low = int(c[0])
        high = int(c[1]) if c[1] is not None else low
        return ast.Players(low, high, int(c[2]) if c[2] is not None else None, span=self.span(meta))

    @v_args(meta=True)
    def param_decl(self, meta, c):
        name, value, low, high = c
        return ast.Param(str(name), value, low, high, span=self.span(meta))

    def literal(self, c):
        tok = c[0]
        if isinstance(tok, int):
            return tok
        if tok.type == "STRING":
            return unquote(tok)
        if tok.type == "YES":
            return True
        if tok.type == "NO":
            return False
        raise AssertionError(tok)

    def signed(self, c):
        return int(c[0])

    def negative(self, c):
        return -int(c[0])

    @v_args(meta=True)
    def card_decl(self, meta, c):
        name, attrs_, shown = c
        return ast.CardKind(
            str(name), tuple(attrs_ or ()), self.template(shown) if shown is not None else None, span=self.span(meta)
        )

    def name_list(self, c):
        return tuple(str(x) for x in c if x is not None)

    @v_args(meta=True)
    def cards_decl(self, meta, c):
        zone, *counts = c
        return ast.Cards(str(zone), self.tspan(zone), tuple(counts), span=self.span(meta))

    @v_args(meta=True)
    def card_count(self, meta, c):
        count, kind, *values = c
        vals = tuple(v for v in values if v is not None)
        return ast.CardCount(int(count), str(kind), vals, span=self.span(meta))

    @v_args(meta=True)
    def zone_decl(self, meta, c):
        name, per, shown, *opts = c
        return ast.Zone(str(name), per is not None, tuple(opts), display=shown, span=self.span(meta))

    def per_player(self, c):
        return True

    @v_args(meta=True)
    def zone_word(self, meta, c):
        return ast.ZoneOption(str(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def zone_refill(self, meta, c):
        return ast.ZoneOption("refill", str(c[0]), int(c[1]) if c[1] is not None else 0, span=self.span(meta))

    @v_args(meta=True)
    def counter_decl(self, meta, c):
        name, per, shown, init = c
        return ast.Counter(str(name), per is not None, init, display=shown, span=self.span(meta))

    @v_args(meta=True)
    def var_decl(self, meta, c):
        name, typ, per, secret, shown, init = c
        return ast.Var(
            str(name),
            str(typ) if typ is not None else None,
            self.tspan(typ) if typ is not None else None,
            per is not None,
            init,
            secret is not None,
            display=shown,
            span=self.span(meta),
        )

    def typed_params(self, c):
        return tuple(x for x in c if x is not None)

    @v_args(meta=True)
    def typed_param(self, meta, c):
        return ast.TypedParam(str(c[0]), str(c[1]), span=self.span(meta))

    @v_args(meta=True)
    def define_decl(self, meta, c):
        name, params, shown, body = c
        return ast.Define(str(name), params, body, display=shown, span=self.span(meta))

    @v_args(meta=True)
    def show_decl(self, meta, c):
        return ast.Show(tuple(ast.Name(str(t), span=self.tspan(t)) for t in c), span=self.span(meta))

    @v_args(meta=True)
    def procedure_decl(self, meta, c):
        name, params, body = c
        return ast.Procedure(str(name), params, body, span=self.span(meta))

    @v_args(meta=True)
    def action_decl(self, meta, c):
        name, cond, body = c
        return ast.Action(str(name), cond, body, span=self.span(meta))

    @v_args(meta=True)
    def setup_hook(self, meta, c):
        return ast.Hook("setup", c[0], span=self.span(meta))

    @v_args(meta=True)
    def round_start_hook(self, meta, c):
        return ast.Hook("round start", c[0], span=self.span(meta))

    @v_args(meta=True)
    def round_end_hook(self, meta, c):
        return ast.Hook("round end", c[0], span=self.span(meta))

    @v_args(meta=True)
    def turn_start_hook(self, meta, c):
        return ast.Hook("turn start", c[0], span=self.span(meta))

    @v_args(meta=True)
    def turn_end_hook(self, meta, c):
        return ast.Hook("turn end", c[0], span=self.span(meta))

    @v_args(meta=True)
    def game_end_hook(self, meta, c):
        return ast.Hook("game end", c[0], span=self.span(meta))

    @v_args(meta=True)
    def round_ends_decl(self, meta, c):
        return ast.EndsWhen("round", c[0], span=self.span(meta))

    @v_args(meta=True)
    def game_ends_decl(self, meta, c):
        return ast.EndsWhen("game", c[0], span=self.span(meta))

    @v_args(meta=True)
    def rank_decl(self, meta, c):
        return ast.Rank(tuple(c), span=self.span(meta))

    @v_args(meta=True)
    def rank_key(self, meta, c):
        return ast.RankKey(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def winners_decl(self, meta, c):
        return ast.Winners(c[0], span=self.span(meta))

    @v_args(meta=True)
    def invariant_decl(self, meta, c):
        return ast.Invariant(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def scenario_decl(self, meta, c):
        name, *steps = c
        return ast.Scenario(unquote(name), tuple(steps), span=self.span(meta))

    def text_list(self, c):
        return tuple(unquote(t) for t in c if t is not None)

    @v_args(meta=True)
    def sc_players(self, meta, c):
        return ast.Step("players", int(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def sc_seed(self, meta, c):
        return ast.Step("seed", int(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def sc_param(self, meta, c):
        return ast.Step("param", c[1], name=str(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def sc_put(self, meta, c):
        return ast.Step("put", texts=c[0], expr=c[1], span=self.span(meta))

    @v_args(meta=True)
    def sc_put_top(self, meta, c):
        return ast.Step("put_top", texts=c[0], expr=c[1], span=self.span(meta))

    @v_args(meta=True)
    def sc_turn(self, meta, c):
        return ast.Step("turn", expr=c[0], span=self.span(meta))

    @v_args(meta=True)
    def sc_set(self, meta, c):
        return ast.Step("set", target=c[0], expr=c[1], span=self.span(meta))

    @v_args(meta=True)
    def sc_play(self, meta, c):
        return ast.Step("play", texts=tuple(unquote(t) for t in c), span=self.span(meta))

    @v_args(meta=True)
    def sc_expect(self, meta, c):
        return ast.Step("expect", expr=c[0], span=self.span(meta))

    @v_args(meta=True)
    def sc_expect_illegal(self, meta, c):
        return ast.Step("expect_illegal", texts=(unquote(c[0]),), span=self.span(meta))

    @v_args(meta=True)
    def sc_expect_moves(self, meta, c):
        return ast.Step("expect_moves", texts=c[0], span=self.span(meta))

    @v_args(meta=True)
    def statistic_decl(self, meta, c):
        return ast.Statistic(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def match_expr(self, meta, c):
        subject, *cases = c
        plain = []
        default = None
        for case in cases:
            if case is None:
                continue
            if case[0] == "else":
                if default is not None:
                    raise RulesError([Diagnostic(self.span(meta), "`match` has two `else` cases")])
                default = case[1]
            else:
                plain.append((case[1], case[2]))
        return ast.Match(subject, tuple(plain), default, span=self.span(meta))

    def match_case(self, c):
        return ("case", c[0], c[1])

    def match_else(self, c):
        return ("else", c[0])

    # -- descriptions (`about "..."` before a declaration; before `replace`, the new one's) and
    # display names (`as "..."`)
    def described(self, c):
        about, d = texts(self, c[:-1]), c[-1]
        return attrs.evolve(d, decl=attrs.evolve(d.decl, about=about)) if isinstance(d, ast.Replace) \
            else attrs.evolve(d, about=about)

    def shown_as(self, c):
        return unquote(c[0])

    def top(self, c):  # pragma: no cover - `?top` inlines single children
        return c[0]

    @v_args(meta=True)
    def extends_decl(self, meta, c):
        return ast.Extends(unquote(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def replace_decl(self, meta, c):
        return ast.Replace(c[0], span=self.span(meta))

    @v_args(meta=True)
    def remove_decl(self, meta, c):
        key = c[0]
        return ast.Remove(key, ast.key_words(key), span=self.span(meta))

    def _remove(kind: str, hook: str | None = None):  # noqa: N805 - a factory used in the class body
        def build(self, c):
            if hook is not None:
                return (kind, hook)
            if kind == "scenario":
                return (kind, unquote(c[0]))
            return (kind, str(c[0])) if c else (kind,)

        return build

    remove_param = _remove("param")
    remove_card = _remove("card")
    remove_zone = _remove("zone")
    remove_counter = _remove("counter")
    remove_var = _remove("var")
    remove_define = _remove("define")
    remove_procedure = _remove("procedure")
    remove_action = _remove("action")
    remove_statistic = _remove("statistic")
    remove_invariant = _remove("invariant")
    remove_cards = _remove("cards")
    remove_scenario = _remove("scenario")
    remove_setup = _remove("hook", "setup")
    remove_round_start = _remove("hook", "round start")
    remove_round_end = _remove("hook", "round end")
    remove_turn_start = _remove("hook", "turn start")
    remove_turn_end = _remove("hook", "turn end")
    remove_game_end = _remove("hook", "game end")
    remove_round_ends = _remove("ends", "round")
    remove_game_ends = _remove("ends", "game")
    remove_winners = _remove("winners")
    remove_rank = _remove("rank")
    del _remove

    @v_args(meta=True)
    def import_decl(self, meta, c):
        return ast.Import(unquote(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def prelude_import_decl(self, meta, c):
        return ast.Import(unquote(c[0]), prelude=True, span=self.span(meta))

    # -- statements
    def block(self, c):
        return tuple(c)

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        return ast.Move(c[0], c[1], c[2], span=self.span(meta))

    @v_args(meta=True)
    def move_all_stmt(self, meta, c):
        return ast.MoveAll(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def draw_stmt(self, meta, c):
        return ast.Draw(c[0], c[1], c[2], span=self.span(meta))

    @v_args(meta=True)
    def deal_stmt(self, meta, c):
        return ast.Deal(c[0], c[1], str(c[2]), self.tspan(c[2]), span=self.span(meta))

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return ast.Shuffle(c[0], span=self.span(meta))

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return ast.Reveal(c[0], span=self.span(meta))

    @v_args(meta=True)
    def show_stmt(self, meta, c):
        return ast.ShowTo(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def swap_stmt(self, meta, c):
        return ast.Swap(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def let_stmt(self, meta, c):
        name, typ, value = c
        return ast.Let(str(name), value, str(typ) if typ is not None else None,
                       self.tspan(typ) if typ is not None else None, span=self.span(meta))

    @v_args(meta=True)
    def assign_stmt(self, meta, c):
        return ast.Assign(c[0], "=", c[1], span=self.span(meta))

    @v_args(meta=True)
    def augassign_stmt(self, meta, c):
        return ast.Assign(c[0], str(c[1]), c[2], span=self.span(meta))

    def target(self, c):
        return tuple(str(x) for x in c)

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        cond, body, *rest = c
        branches = [(cond, body)]
        orelse = None
        for part in rest:
            if part is None:
                continue
            if part[0] == "elif":
                branches.append((part[1], part[2]))
            else:
                orelse = part[1]
        return ast.If(tuple(branches), orelse, span=self.span(meta))

    def elif_part(self, c):
        return ("elif", c[0], c[1])

    def else_part(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        return ast.ForEach(str(c[0]), c[1], c[2], span=self.span(meta))

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return ast.While(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return ast.Repeat(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def choose_stmt(self, meta, c):
        may, name, domain, by, label, pass_label = c
        if pass_label is not None and may is None:
            raise RulesError([Diagnostic(self.span(meta), "`else \"...\"` names the option to decline a choice, "
                                         "so it needs `may choose`")])
        warnings: list[Diagnostic] = []
        return ast.Choose(
            str(name),
            domain,
            by,
            unquote(label) if label is not None else None,
            may is not None,
            unquote(pass_label) if pass_label is not None else None,
            self.label(label, warnings),
            self.label(pass_label, warnings),
            tuple(warnings),
            span=self.span(meta),
        )

    @v_args(meta=True)
    def secretly_stmt(self, meta, c):
        return ast.Secretly(c[0], span=self.span(meta))

    @v_args(meta=True)
    def simultaneously_stmt(self, meta, c):
        """`simultaneously for each p in L { B }` is `for each p in L { secretly { B } }`, each
        `choose` in B by p unless it says otherwise (which the checker refuses)."""
        name, seq, body = str(c[0]), c[1], c[2]
        span = self.span(meta)
        return ast.ForEach(name, seq, (ast.Secretly(_chosen_by(body, name), name, span=span),), span=span)

    @v_args(meta=True)
    def race_stmt(self, meta, c):
        name, seq, random, body = str(c[0]), c[1], c[2], c[3]
        span = self.span(meta)
        if body and isinstance(body[0], ast.Choose) and body[0].by is None:
            body = (attrs.evolve(body[0], by=ast.Name(name, span=body[0].span)), *body[1:])
        return ast.Race(name, seq, random is not None, body, span=span)

    @v_args(meta=True)
    def call_stmt(self, meta, c):
        name, *args = c
        return ast.CallStmt(str(name), tuple(a for a in args if a is not None), span=self.span(meta))

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return ast.End(str(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def reverse_stmt(self, meta, c):
        return ast.ReverseDirection(span=self.span(meta))

    @v_args(meta=True)
    def next_stmt(self, meta, c):
        return ast.NextPlayer(c[0], span=self.span(meta))

    @v_args(meta=True)
    def continue_stmt(self, meta, c):
        return ast.ContinueFrom(c[0], span=self.span(meta))

    @v_args(meta=True)
    def say_stmt(self, meta, c):
        return ast.Say(texts(self, c), span=self.span(meta))

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return ast.Break(span=self.span(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return ast.Return(span=self.span(meta))

    # -- expressions
    @v_args(meta=True)
    def if_expr(self, meta, c):
        return ast.IfExpr(c[0], c[1], c[2], span=self.span(meta))

    @v_args(meta=True)
    def where_expr(self, meta, c):
        return ast.Where(c[0], c[1], span=self.span(meta))

    def _bin(op):  # noqa: N805 - a factory used in the class body
        @v_args(meta=True)
        def build(self, meta, c):
            return ast.Binary(op, c[0], c[-1], span=self.span(meta))

        return build

    or_expr = _bin("or")
    and_expr = _bin("and")
    add = _bin("+")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")
    mod = _bin("%")
    member = _bin("in")
    del _bin

    @v_args(meta=True)
    def not_member(self, meta, c):
        inner = ast.Binary("in", c[0], c[1], span=self.span(meta))
        return ast.Unary("not", inner, span=self.span(meta))

    @v_args(meta=True)
    def not_expr(self, meta, c):
        return ast.Unary("not", c[0], span=self.span(meta))

    @v_args(meta=True)
    def neg(self, meta, c):
        return ast.Unary("-", c[0], span=self.span(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return ast.Binary(str(c[1]), c[0], c[2], span=self.span(meta))

    @v_args(meta=True)
    def is_kind(self, meta, c):
        return ast.IsKind(c[0], str(c[1]), self.tspan(c[1]), False, span=self.span(meta))

    @v_args(meta=True)
    def is_not_kind(self, meta, c):
        return ast.IsKind(c[0], str(c[1]), self.tspan(c[1]), True, span=self.span(meta))

    @v_args(meta=True)
    def range_expr(self, meta, c):
        return ast.Range(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return ast.Attr(c[0], str(c[1]), self.tspan(c[1]), span=self.span(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        name, *args = c
        return ast.Call(str(name), tuple(a for a in args if a is not None), span=self.span(meta))

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return ast.IntLit(int(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return ast.StrLit(unquote(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def yes_lit(self, meta, c):
        return ast.BoolLit(True, span=self.span(meta))

    @v_args(meta=True)
    def no_lit(self, meta, c):
        return ast.BoolLit(False, span=self.span(meta))

    @v_args(meta=True)
    def none_lit(self, meta, c):
        return ast.NoneLit(span=self.span(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return ast.Name(str(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def players_expr(self, meta, c):
        return ast.PlayersExpr(c[0] if c else None, span=self.span(meta))

    @v_args(meta=True)
    def list_lit(self, meta, c):
        return ast.ListLit(tuple(x for x in c if x is not None), span=self.span(meta))


def texts(build: _Build, tokens: list[Token]) -> ast.Template:
    """Strings written one after another (`about`, `say`): one text, joined by spaces."""
    span = attrs.evolve(build.tspan(tokens[0]), end_line=tokens[-1].end_line, end_column=tokens[-1].end_column)
    return joined([build.template(t) for t in tokens], span)


def joined(templates: list[ast.Template], span: ast.Span) -> ast.Template:
    """Templates one after another as one, a space between each two (neighbouring texts merged:
    a template's parts alternate text and values)."""
    if len(templates) == 1:
        return templates[0]
    parts: list[str | ast.Expr] = []
    for k, t in enumerate(templates):
        for part in ([" "] if k else []) + list(t.parts):
            if parts and isinstance(part, str) and isinstance(parts[-1], str):
                parts[-1] += part
            else:
                parts.append(part)
    return ast.Template(tuple(parts), span=span)


def unquote(tok: str) -> str:
    body = str(tok)[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def parse_template(text: str, path: str, line: int, column: int, span: ast.Span,
                   warnings: list[Diagnostic] | None = None) -> ast.Template:
    """Split "text {expr} text" into parts; each hole is parsed as an expression. With `warnings`
    (a label's), a `{` that is no hole (unclosed, or `{}`) shows as written, and is warned about."""
    parts: list[str | ast.Expr] = []
    pos = 0
    warned: set[int] = set()

    def warn(at: int, message: str, hint: str) -> None:
        if warnings is not None and at not in warned:
            warned.add(at)
            warnings.append(Diagnostic(ast.Span(path, line, column + at, line, column + at + 1), message,
                                       f"it shows as written; {hint}", severity="warning"))

    for m in re.finditer(r"\{([^{}]*)\}", text):
        for j in (j for j in range(pos, m.start()) if text[j] == "{"):
            warn(j, "a `{` with no `}`", "close it to fill in a value: `{name}`")
        if warnings is not None and not m.group(1).strip():
            warn(m.start(), "an empty `{}`", "write the value to fill in between the braces")
            continue
        if m.start() > pos:
            parts.append(text[pos : m.start()])
        src = m.group(1)
        try:
            tree = lark_parser().parse(src, start="expr")
        except UnexpectedInput as e:
            col = column + m.start(1) + (getattr(e, "column", 1) or 1) - 1
            raise RulesError(
                [Diagnostic(ast.Span(path, line, col, line, col + 1), f"bad expression in string: {{{src}}}")]
            ) from None
        build = _Build(path, line - 1, column + m.start(1) - 1)
        too_big = _limits(tree, build)
        if too_big:
            raise RulesError(too_big)
        parts.append(build.transform(tree))
        pos = m.end()
    for j in (j for j in range(pos, len(text)) if text[j] == "{"):
        warn(j, "a `{` with no `}`", "close it to fill in a value: `{name}`")
    if pos < len(text):
        parts.append(text[pos:])
    return ast.Template(tuple(parts), span=span)


def _describe_expected(expected: set[str]) -> str:
    words = sorted({TERMINAL_NAMES.get(t, _keyword(t)) for t in expected})
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


def _keyword(terminal: str) -> str:
    term = lark_parser().get_terminal(terminal) if terminal in _terminal_names() else None
    if term is not None and term.pattern.type == "str":
        return f"'{term.pattern.value}'"
    return terminal.lower()


@lru_cache(maxsize=1)
def _terminal_names() -> frozenset[str]:
    return frozenset(t.name for t in lark_parser().terminals)


def _diagnose(e: UnexpectedInput, path: str, text: str, lines_above: int = 0) -> Diagnostic:
    line = getattr(e, "line", 0) or 0
    col = getattr(e, "column", 0) or 0
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        return _unclosed(text, path) or Diagnostic(
            _end_span(text, path), "unexpected end of file", f"expected {_describe_expected(e.expected)}"
        )
    if isinstance(e, UnexpectedEOF):
        return _unclosed(text, path) or Diagnostic(_end_span(text, path), "unexpected end of file")
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
        hint = None
        rest_of_line = text[e.pos_in_stream + 1 :].split("\n", 1)[0]
        if ch == '"' and '"' not in rest_of_line:
            return Diagnostic(ast.Span(path, line, col, line, col + 1), "unterminated string",
                              'close it with " on the same line')
        if ch.isalpha() and not ch.isascii():
            hint = "names are written with ASCII letters, digits and _ (texts in double quotes may use any)"
        if ch == "'":
            hint = "strings are written in double quotes"
        elif ch == "=" and text[e.pos_in_stream : e.pos_in_stream + 2] != "==":
            hint = "compare with '=='"
        return Diagnostic(ast.Span(path, line, col, line, col + 1), f"unexpected character {ch!r}", hint)
    assert isinstance(e, UnexpectedToken)
    tok = e.token
    line_start = text.rfind("\n", 0, tok.start_pos) + 1
    first_word = re.match(r"[A-Za-z_]+", text[line_start:])
    if first_word and first_word.group(0) in DECL_WORDS:
        # A declaration begins on this line, yet the parser is still inside a block.
        opened = _unclosed(text[:line_start], path)
        if opened is not None:
            decl_line = text.count("\n", 0, line_start) + 1 + lines_above
            return Diagnostic(
                opened.span,
                f"{opened.message} before the declaration at line {decl_line}",
                opened.hint,
            )
    span = ast.Span(path, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
    shown = str(tok) if tok.type != "$END" else "end of file"
    expected = e.expected
    hint = f"expected {_describe_expected(expected)}"
    if tok.type == "RBRACE" and "RBRACE" not in expected:
        hint += "; is a statement unfinished?"
    if str(tok) == "=" and "COMPARE" in expected:
        hint = "to compare, write '=='"
    return Diagnostic(span, f"unexpected {shown!r}", hint)


def _end_span(text: str, path: str) -> ast.Span:
    """The last line's end (lines counted at "\n" as the lexer counts them), past trailing blanks."""
    body = text.rstrip("\n")
    line = body.count("\n") + 1
    width = len(body) - (body.rfind("\n") + 1)
    return ast.Span(path, line, width + 1, line, width + 2)


def _unclosed(text: str, path: str) -> Diagnostic | None:
    """At end of file, name the brace, parenthesis or bracket that was never closed."""
    stack: list[tuple[str, int, int]] = []
    pairs = {"}": "{", ")": "(", "]": "["}
    line, col, i = 1, 1, 0
    in_str = False
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 1
                col += 1
            elif ch == '"' or ch == "\n":
                in_str = False
        elif ch == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif ch == '"':
            in_str = True
        elif ch in "{([":
            stack.append((ch, line, col))
        elif ch in "})]" and stack and stack[-1][0] == pairs[ch]:
            stack.pop()
        if ch == "\n":
            line += 1
            col = 1
        else:
            col += 1
        i += 1
    if not stack:
        return None
    ch, ln, cl = stack[-1]
    close = {"{": "}", "(": ")", "[": "]"}[ch]
    return Diagnostic(ast.Span(path, ln, cl, ln, cl + 1), f"unclosed '{ch}'", f"add the missing '{close}'")



def _split_decls(text: str) -> list[tuple[int, int]]:
    """Character ranges of the top-level declarations: each starts with a declaration word at
    the start of a line and at brace depth 0 (a best effort used only for error recovery)."""
    starts = []
    depth = 0
    pos = 0
    described = False  # an `about` began the last chunk: the declaration it describes is its own
    for m in re.finditer(r"[^\n]*\n?", text):
        line = m.group(0)
        stripped = line.lstrip()
        word = re.match(r"[A-Za-z_]+", stripped)
        if depth <= 0 and word and word.group(0) in DECL_WORDS and len(line) - len(stripped) == 0:
            if not described:
                starts.append(pos)
            described = word.group(0) == "about"
            depth = 0
        code = re.sub(r'"([^"\\\n]|\\.)*"|#.*', "", line)
        depth += code.count("{") - code.count("}")
        pos += len(line)
        if not line:
            break
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return [(s, e) for s, e in zip(starts, starts[1:] + [len(text)], strict=True)]


def parse_text(text: str, path: str = "<string>") -> ast.RulesFile:
    """Parse one rules file's text. Raises RulesError with located syntax errors."""
    parser = lark_parser()
    try:
        tree = parser.parse(text, start="start")
    except UnexpectedInput as first:
        raise RulesError(_recover(text, path, first), {path: text}) from None
    build = _Build(path)
    too_big = _limits(tree, build)
    if too_big:
        raise RulesError(too_big, {path: text})
    try:
        decls = build.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, RulesError):
            raise RulesError(e.orig_exc.diagnostics, {path: text}) from None
        if isinstance(e.orig_exc, RecursionError):
            raise RulesError([_too_deep(ast.Span(path, 1, 1, 1, 2))], {path: text}) from None
        raise
    except RecursionError:  # (not reached within MAX_DEPTH: a safety net, still an error)
        raise RulesError([_too_deep(ast.Span(path, 1, 1, 1, 2))], {path: text}) from None
    return ast.RulesFile(path, text, tuple(decls), span=ast.Span(path, 1, 1, 1, 1))


def _too_deep(span: ast.Span) -> Diagnostic:
    return Diagnostic(span, f"the rules nest too deeply here (more than {MAX_DEPTH} levels)",
                      "split long expressions and deep blocks with `define` and `procedure`")


def _limits(tree: Tree, build: _Build) -> list[Diagnostic]:
    """The places where the tree nests deeper than MAX_DEPTH (the first in each declaration) and
    the number literals longer than MAX_DIGITS. Walked with a list, not recursion, so any depth
    is measured; later stages, which recurse, only see trees within the limit."""
    diags: list[Diagnostic] = []
    tops = tree.children if tree.data == "start" else [tree]
    for top in tops:
        if not isinstance(top, Tree):
            continue
        stack = [(top, 2 if tree.data == "start" else 1)]
        deep = False
        while stack:
            node, depth = stack.pop()
            if depth > MAX_DEPTH and not deep:
                diags.append(_too_deep(build.span(node.meta)))
                deep = True
            for child in reversed(node.children):
                if isinstance(child, Tree):
                    stack.append((child, depth + 1))
                elif isinstance(child, Token) and child.type == "INT" and len(child) > MAX_DIGITS:
                    diags.append(Diagnostic(build.tspan(child), f"this number is too long ({len(child)} digits; "
                                            f"the most is {MAX_DIGITS})"))
    return diags


def _recover(text: str, path: str, first: UnexpectedInput) -> list[Diagnostic]:
    """Every syntax error, up to one more than MAX_ERRORS: each top-level declaration is parsed
    alone and its errors moved down to its line (so the work grows with the file, not its square).
    A declaration cut short by the next one is reported as unfinished, once."""
    parser = lark_parser()
    chunks = _split_decls(text)
    diags: list[Diagnostic] = []
    line = 0  # lines above the chunk
    at = 0
    for k, (s, e) in enumerate(chunks):
        line += text.count("\n", at, s)
        at = s
        chunk = text[s:e]
        try:
            parser.parse(chunk, start="start")
        except UnexpectedInput as err:
            at_end = isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END")
            d = _diagnose(err, path, chunk, line)
            if at_end and k < len(chunks) - 1 and not d.message.startswith("unclosed"):
                d = _unfinished(chunk, path, err)
            diags.append(_moved(d, line))
            if len(diags) > MAX_ERRORS:
                break
    return diags or [_diagnose(first, path, text)]


def _moved(d: Diagnostic, lines: int) -> Diagnostic:
    """A diagnostic found in a declaration parsed alone, moved down to where it stands in the file."""
    s = d.span
    if s is None or not lines:
        return d
    return attrs.evolve(d, span=attrs.evolve(s, line=s.line + lines, end_line=s.end_line + lines))


def _unfinished(text: str, path: str, err: UnexpectedInput) -> Diagnostic:
    """A declaration that stops before it is complete (the next one begins on the next line)."""
    body = text.rstrip()
    line = body.count("\n") + 1
    col = len(body) - (body.rfind("\n") + 1)
    expected = getattr(err, "expected", None)
    hint = f"expected {_describe_expected(expected)}" if expected else None
    return Diagnostic(ast.Span(path, line, col, line, col + 1), "this declaration is unfinished", hint)


def parse_expr(text: str, path: str = "<expr>") -> ast.Expr:
    """Parse one expression (used by scenario files, tests and the CLI)."""
    try:
        tree = lark_parser().parse(text, start="expr")
    except UnexpectedInput as e:
        raise RulesError([_diagnose(e, path, text)], {path: text}) from None
    build = _Build(path)
    too_big = _limits(tree, build)
    if too_big:
        raise RulesError(too_big, {path: text})
    return build.transform(tree)
