"""The parser: rules text to `ast` nodes, and located syntax errors (never a Python traceback).

Covers every declaration and statement form, expression precedence, spans, the compiler-style
error format, error recovery (several broken declarations reported at once) and a hypothesis
fuzz of mutated `games/tempurra.rules`.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl import ast
from rulesdsl.errors import Diagnostic
from rulesdsl.loader import parse_file
from rulesdsl.parser import parse_expr, parse_text

from .conftest import GAMES

TEMPURRA = (GAMES / "tempurra.rules").read_text(encoding="utf-8")


def parse(text: str) -> ast.RulesFile:
    return parse_text(text, "t.rules")


def decl(text: str) -> ast.Decl:
    (d,) = parse(text).decls
    return d


def body(stmts: str) -> tuple[ast.Stmt, ...]:
    """The statements of an action whose body is `stmts`."""
    (a,) = parse(f"action a {{\n{stmts}\n}}\n").decls
    assert isinstance(a, ast.Action)
    return a.body


def stmt(text: str) -> ast.Stmt:
    (s,) = body(text)
    return s


def errors(text: str, path: str = "t.rules") -> list[Diagnostic]:
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text(text, path)
    assert info.value.diagnostics, "a RulesError must carry at least one diagnostic"
    return info.value.diagnostics


def where(d: Diagnostic) -> tuple[int, int]:
    assert d.span is not None
    return d.span.line, d.span.column


def sx(e) -> str:
    """An expression as an s-expression, so precedence reads at a glance."""
    match e:
        case ast.Name(id=name):
            return name
        case ast.IntLit(value=v):
            return str(v)
        case ast.BoolLit(value=v):
            return "yes" if v else "no"
        case ast.NoneLit():
            return "none"
        case ast.StrLit(value=v):
            return repr(v)
        case ast.Binary(op=op, left=left, right=right):
            return f"({op} {sx(left)} {sx(right)})"
        case ast.Unary(op=op, operand=x):
            return f"({op} {sx(x)})"
        case ast.Attr(obj=obj, name=name):
            return f"(. {sx(obj)} {name})"
        case ast.Call(func=f, args=args):
            return "(" + " ".join([f, *map(sx, args)]) + ")"
        case ast.IsKind(operand=x, kind=k, negate=neg):
            return f"({'is-not' if neg else 'is'} {sx(x)} {k})"
        case ast.Range(low=lo, high=hi):
            return f"(.. {sx(lo)} {sx(hi)})"
        case ast.Where(seq=s, cond=c):
            return f"(where {sx(s)} {sx(c)})"
        case ast.IfExpr(cond=c, then=a, orelse=b):
            return f"(if {sx(c)} {sx(a)} {sx(b)})"
        case ast.PlayersExpr(start=None):
            return "(players)"
        case ast.PlayersExpr(start=p):
            return f"(players-from {sx(p)})"
        case ast.ListLit(items=items):
            return "[" + " ".join(map(sx, items)) + "]"
    raise AssertionError(f"no s-expression for {e!r}")


# ---------------------------------------------------------------- the game file


def test_tempurra_parses_into_its_declarations():
    f = parse_text(TEMPURRA, "games/tempurra.rules")
    assert f.path == "games/tempurra.rules"
    assert f.source == TEMPURRA
    kinds = [type(d).__name__ for d in f.decls]
    assert kinds[:2] == ["GameName", "Players"]
    assert f.decls[0].name == "Tempurra"
    players = f.decls[1]
    assert (players.low, players.high, players.default) == (3, 7, 4)
    params = {d.name: d for d in f.decls if isinstance(d, ast.Param)}
    assert set(params) == {"hand_size", "tokens_to_lose", "empty_hand_draw", "starting_indigestion"}
    assert (params["tokens_to_lose"].value, params["tokens_to_lose"].low, params["tokens_to_lose"].high) == (3, 1, 10)
    cards = [d.name for d in f.decls if isinstance(d, ast.CardKind)]
    assert cards == ["dish", "plus_one", "reverse", "choose", "indigestion"]
    actions = [d.name for d in f.decls if isinstance(d, ast.Action)]
    assert actions == ["serve", "eat", "play", "skip"]
    hooks = [d.when for d in f.decls if isinstance(d, ast.Hook)]
    assert hooks == ["setup", "round start", "round end", "turn start"]
    assert sum(isinstance(d, ast.EndsWhen) and d.what == "game" for d in f.decls) == 1
    assert sum(isinstance(d, ast.Rank) for d in f.decls) == 1


def test_parse_file_reads_a_file(tmp_path):
    p = tmp_path / "g.rules"
    p.write_text('game "G"\nplayers 2..3\n', encoding="utf-8")
    f = parse_file(p)
    assert f.path == str(p)
    assert [type(d) for d in f.decls] == [ast.GameName, ast.Players]


def test_parse_file_missing_file_is_a_rules_error(tmp_path):
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_file(tmp_path / "nope.rules")
    assert "no such file" in info.value.format()


def test_parse_file_not_utf8_is_a_rules_error(tmp_path):
    p = tmp_path / "latin1.rules"
    p.write_bytes('game "Caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_file(p)
    assert "cannot read" in info.value.format()


def test_empty_file_and_comment_only_file_parse():
    assert parse("").decls == ()
    assert parse("# nothing here").decls == ()
    assert parse("\n\n   \n# a\n  # b\n").decls == ()


# ---------------------------------------------------------------- declarations


def test_game_and_players():
    g = decl('game "Tempurra: the game"')
    assert isinstance(g, ast.GameName) and g.name == "Tempurra: the game"
    p = decl("players 3..7 default 4")
    assert isinstance(p, ast.Players) and (p.low, p.high, p.default) == (3, 7, 4)
    p = decl("players 2..4")
    assert (p.low, p.high, p.default) == (2, 4, None)


@pytest.mark.parametrize(
    ("text", "value", "low", "high"),
    [
        ("param n = 5 in 1..10", 5, 1, 10),
        ("param n = -2 in -5..-1", -2, -5, -1),
        ("param n = 3", 3, None, None),
        ("param flag = yes", True, None, None),
        ("param flag = no", False, None, None),
        ('param label = "hi"', "hi", None, None),
    ],
)
def test_param(text, value, low, high):
    d = decl(text)
    assert isinstance(d, ast.Param)
    assert d.name in ("n", "flag", "label")
    assert d.value == value and type(d.value) is type(value)
    assert (d.low, d.high) == (low, high)


def test_card_kinds_with_attributes_and_shown_template():
    d = decl('card dish(number, color) shown "{color} {number}!"')
    assert isinstance(d, ast.CardKind)
    assert d.name == "dish" and d.attrs == ("number", "color")
    assert d.shown is not None
    assert [sx(p) if isinstance(p, ast.Expr) else p for p in d.shown.parts] == ["color", " ", "number", "!"]
    plain = decl("card joker")
    assert plain.attrs == () and plain.shown is None
    assert decl("card blank()").attrs == ()


def test_cards_block_counts_values_and_commas():
    d = decl('cards in draw {\n  14 dish(2), 3 dish(-1)\n  7 plus_one, 2 named("x", yes)\n  5 reverse\n}')
    assert isinstance(d, ast.Cards) and d.zone == "draw"
    assert d.zone_span.line == 1 and d.zone_span.column == 10
    got = [(c.count, c.kind, c.values) for c in d.counts]
    assert got == [(14, "dish", (2,)), (3, "dish", (-1,)), (7, "plus_one", ()), (2, "named", ("x", True)),
                   (5, "reverse", ())]
    assert decl("cards in box { }").counts == ()


def test_zones_and_their_options():
    d = decl("zone draw: stack, hidden, refill from discard keeping 1")
    assert isinstance(d, ast.Zone) and d.name == "draw" and not d.per_player
    words = [(o.word, o.source, o.keep) for o in d.options]
    assert words == [("stack", None, 0), ("hidden", None, 0), ("refill", "discard", 1)]
    h = decl("zone hand per player: hand, private")
    assert h.per_player and [o.word for o in h.options] == ["hand", "private"]
    # An option the checker will reject still parses (the checker says which words are allowed).
    assert [o.word for o in decl("zone z: stak").options] == ["stak"]


def test_counters_vars_defines_show():
    c = decl("counter tokens per player = 0")
    assert isinstance(c, ast.Counter) and c.per_player and sx(c.init) == "0"
    v = decl("var starter: player = none")
    assert isinstance(v, ast.Var) and (v.name, v.type, v.per_player) == ("starter", "player", False)
    assert v.type_span is not None and (v.type_span.line, v.type_span.column) == (1, 14)
    v = decl("var best per player = 3")
    assert v.type is None and v.type_span is None and v.per_player
    d = decl("define sum_of(p: player, n: int) = n + p.tokens")
    assert isinstance(d, ast.Define)
    assert [(p.name, p.type) for p in d.params] == [("p", "player"), ("n", "int")]
    assert sx(d.body) == "(+ n (. p tokens))"
    assert decl("define x = 1").params is None
    s = decl("show a, b, c")
    assert isinstance(s, ast.Show) and [n.id for n in s.names] == ["a", "b", "c"]
    assert [n.span.column for n in s.names] == [6, 9, 12]


def test_procedure_action_and_hooks():
    p = decl("procedure eat(who: player, n: int) {\n  say \"x\"\n}")
    assert isinstance(p, ast.Procedure) and p.name == "eat"
    assert [(x.name, x.type) for x in p.params] == [("who", "player"), ("n", "int")]
    assert len(p.body) == 1
    assert decl("procedure nothing() { }").params == ()
    a = decl("action serve when any(me.hand) { }")
    assert isinstance(a, ast.Action) and a.name == "serve" and sx(a.cond) == "(any (. me hand))" and a.body == ()
    assert decl("action eat { }").cond is None
    f = parse("setup { }\nround start { }\nround end { }\nturn start { }\nturn end { }\ngame end { }\n")
    assert [h.when for h in f.decls] == ["setup", "round start", "round end", "turn start", "turn end", "game end"]


def test_end_conditions_ranking_winners_import():
    f = parse(
        "round ends when empty(draw)\n"
        "game ends when any(players where it.tokens >= 3)\n"
        "rank by lowest it.tokens, then highest count(it.hand), lowest it.seat\n"
        "winners are players where it.tokens == 0\n"
        'import "prelude/standard.rules"\n'
    )
    r, g, rank, w, imp = f.decls
    assert (r.what, sx(r.cond)) == ("round", "(empty draw)")
    assert g.what == "game"
    assert [(k.order, sx(k.key)) for k in rank.keys] == [
        ("lowest", "(. it tokens)"), ("highest", "(count (. it hand))"), ("lowest", "(. it seat)")]
    assert isinstance(w, ast.Winners) and sx(w.expr) == "(where (players) (== (. it tokens) 0))"
    assert isinstance(imp, ast.Import) and imp.path == "prelude/standard.rules"


def test_declaration_spans_cover_the_declaration():
    f = parse('# header\n\ngame "x"\nplayers 2..4\n\naction a {\n  say "hi"\n}\n')
    g, p, a = f.decls
    assert (g.span.file, g.span.line, g.span.column, g.span.end_line, g.span.end_column) == ("t.rules", 3, 1, 3, 9)
    assert (p.span.line, p.span.column) == (4, 1)
    assert (a.span.line, a.span.column, a.span.end_line, a.span.end_column) == (6, 1, 8, 2)
    assert (a.body[0].span.line, a.body[0].span.column) == (7, 3)


# ---------------------------------------------------------------- statements


def test_moves_draws_deals():
    m = stmt("move card to plate")
    assert isinstance(m, ast.Move) and sx(m.what) == "card" and sx(m.to) == "plate" and m.at is None
    m = stmt("move top(draw) to me.grid at 3")
    assert sx(m.what) == "(top draw)" and sx(m.to) == "(. me grid)" and sx(m.at) == "3"
    m = stmt("move eaten where it is indigestion to sick")
    assert sx(m.what) == "(where eaten (is it indigestion))"
    ma = stmt("move all from eaten to eater.hand")
    assert isinstance(ma, ast.MoveAll) and sx(ma.source) == "eaten" and sx(ma.to) == "(. eater hand)"
    d = stmt("draw amount + 1 from draw to eaten")
    assert isinstance(d, ast.Draw) and sx(d.count) == "(+ amount 1)" and sx(d.source) == "draw"
    deal = stmt("deal hand_size from draw to each hand")
    assert isinstance(deal, ast.Deal) and deal.zone == "hand" and sx(deal.count) == "hand_size"
    assert (deal.zone_span.line, deal.zone_span.column) == (2, 34)


def test_card_statements():
    assert isinstance(stmt("shuffle draw"), ast.Shuffle)
    assert sx(stmt("reveal eaten").what) == "eaten"
    s = stmt("show top(draw) to me")
    assert isinstance(s, ast.ShowTo) and sx(s.what) == "(top draw)" and sx(s.who) == "me"
    s = stmt("swap a with b")
    assert isinstance(s, ast.Swap) and (sx(s.first), sx(s.second)) == ("a", "b")


def test_let_and_assignments():
    s = stmt("let holder = first(players)")
    assert isinstance(s, ast.Let) and s.name == "holder" and sx(s.value) == "(first (players))"
    s = stmt("holder = none")
    assert isinstance(s, ast.Assign) and s.target == ("holder",) and s.op == "=" and sx(s.value) == "none"
    s = stmt("eater.tokens += 1")
    assert s.target == ("eater", "tokens") and s.op == "+="
    assert stmt("x -= 2").op == "-="
    assert stmt("direction = clockwise").target == ("direction",)


def test_if_elif_else():
    s = stmt("if a {\n say \"1\"\n} else if b {\n say \"2\"\n} else if c { } else {\n say \"3\"\n}")
    assert isinstance(s, ast.If)
    assert [sx(c) for c, _ in s.branches] == ["a", "b", "c"]
    assert [len(b) for _, b in s.branches] == [1, 1, 0]
    assert s.orelse is not None and len(s.orelse) == 1
    plain = stmt("if a { }")
    assert plain.orelse is None and len(plain.branches) == 1


def test_loops_break_return():
    f = stmt("for each p in players from me {\n  break\n}")
    assert isinstance(f, ast.ForEach) and f.name == "p" and sx(f.seq) == "(players-from me)"
    assert isinstance(f.body[0], ast.Break)
    w = stmt("while holder == none {\n return\n}")
    assert isinstance(w, ast.While) and sx(w.cond) == "(== holder none)" and isinstance(w.body[0], ast.Return)
    r = stmt("repeat starting_indigestion times {\n move top(box) to draw\n}")
    assert isinstance(r, ast.Repeat) and sx(r.count) == "starting_indigestion" and len(r.body) == 1


def test_choose_forms():
    c = stmt('choose card in holder.hand where card is dish by holder as "begin"')
    assert isinstance(c, ast.Choose)
    assert (c.name, c.label, c.optional) == ("card", "begin", False)
    assert sx(c.domain) == "(where (. holder hand) (is card dish))"
    assert sx(c.by) == "holder"
    c = stmt("choose next_one in others")
    assert (c.by, c.label, c.optional) == (None, None, False)
    c = stmt('may choose n in 1..3 as "how many"')
    assert c.optional and sx(c.domain) == "(.. 1 3)" and c.label == "how many"
    c = stmt("choose add in [yes, no] by loser")
    assert sx(c.domain) == "[yes no]"


def test_turn_order_and_misc_statements():
    s = body("eat_cards(me, plate_sum)\nnothing()\nend round\nreverse direction\nnext player is next_one\n"
             'continue from holder\nsay "{eater} has indigestion"')
    call, call0, end, rev, nxt, cont, say = s
    assert isinstance(call, ast.CallStmt) and call.func == "eat_cards" and [sx(a) for a in call.args] == [
        "me", "plate_sum"]
    assert call0.args == ()
    assert isinstance(end, ast.End) and end.what == "round"
    assert isinstance(rev, ast.ReverseDirection)
    assert isinstance(nxt, ast.NextPlayer) and sx(nxt.player) == "next_one"
    assert isinstance(cont, ast.ContinueFrom) and sx(cont.player) == "holder"
    assert isinstance(say, ast.Say)
    assert [sx(p) if isinstance(p, ast.Expr) else p for p in say.text.parts] == ["eater", " has indigestion"]


def test_statements_on_one_line_and_many_lines():
    # Statements need no separators; a statement may span lines.
    s = body("move a to b move c to d\nchoose card in me.hand where card is dish\n    and card.number == 3")
    assert [type(x) for x in s] == [ast.Move, ast.Move, ast.Choose]
    assert sx(s[2].domain) == "(where (. me hand) (and (is card dish) (== (. card number) 3)))"


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("a or b and c", "(or a (and b c))"),
        ("a and b or c", "(or (and a b) c)"),
        ("a or b or c", "(or (or a b) c)"),
        ("not a and b", "(and (not a) b)"),
        ("not not a", "(not (not a))"),
        ("not a == b", "(not (== a b))"),
        ("a == b and c != d", "(and (== a b) (!= c d))"),
        ("a < b or c >= d", "(or (< a b) (>= c d))"),
        ("a + 1 <= b * 2", "(<= (+ a 1) (* b 2))"),
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
        ("10 - 3 - 2", "(- (- 10 3) 2)"),
        ("7 / 2 % 3", "(% (/ 7 2) 3)"),
        ("-2 * 3", "(* (- 2) 3)"),
        ("-x.y", "(- (. x y))"),
        ("a - -b", "(- a (- b))"),
        ("a.b.c", "(. (. a b) c)"),
        ("c is reverse or c is choose", "(or (is c reverse) (is c choose))"),
        ("c is not dish and yes", "(and (is-not c dish) yes)"),
        ("x in xs and y not in ys", "(and (in x xs) (not (in y ys)))"),
        ("1..3", "(.. 1 3)"),
        ("1 + 1..n - 1", "(.. (+ 1 1) (- n 1))"),
        ("x in 1..3", "(in x (.. 1 3))"),
        ("hand where it is dish and it.number == 3", "(where hand (and (is it dish) (== (. it number) 3)))"),
        ("a where b or c", "(where a (or b c))"),
        ("a or b where c", "(where (or a b) c)"),
        ("players", "(players)"),
        ("players from p", "(players-from p)"),
        ("players from next(me) where it.tokens > 0", "(where (players-from (next me)) (> (. it tokens) 0))"),
        ("players from p.left", "(players-from (. p left))"),
        ("first(players from duty where any(it.hand where it is dish))",
         "(first (where (players-from duty) (any (where (. it hand) (is it dish)))))"),
        ("top(plate where it is dish).number", "(. (top (where plate (is it dish))) number)"),
        ("sum((plate where it is dish).number) + count(plate where it is plus_one)",
         "(+ (sum (. (where plate (is it dish)) number)) (count (where plate (is it plus_one))))"),
        ("if a then 1 else 2 + 3", "(if a 1 (+ 2 3))"),
        ("if a then b else if c then d else e", "(if a b (if c d e))"),
        ("[1, 2, x]", "[1 2 x]"),
        ("[]", "[]"),
        ("min(a, b)", "(min a b)"),
        ("f()", "(f)"),
        ("yes and not no", "(and yes (not no))"),
        ("x == none", "(== x none)"),
        ('kind == "dish"', "(== kind 'dish')"),
    ],
)
def test_expression_structure(source, tree):
    assert sx(parse_expr(source)) == tree
    # The same expression inside a file parses the same way.
    d = decl(f"define x = {source}")
    assert sx(d.body) == tree


def test_keywords_can_name_card_kinds():
    f = parse("card choose\ncard reverse\ncard players\ncard move\ncard end\ncard draw\n")
    assert [d.name for d in f.decls] == ["choose", "reverse", "players", "move", "end", "draw"]
    assert sx(parse_expr("c is reverse")) == "(is c reverse)"
    assert sx(parse_expr("c is choose or c is not move")) == "(or (is c choose) (is-not c move))"
    s = stmt("choose card in me.hand where card is plus_one or card is reverse or card is choose")
    assert sx(s.domain) == "(where (. me hand) (or (or (is card plus_one) (is card reverse)) (is card choose)))"
    c = decl("cards in draw { 5 reverse, 5 choose }")
    assert [x.kind for x in c.counts] == ["reverse", "choose"]


def test_comments_are_ignored_everywhere_but_in_strings():
    f = parse(
        "# a file comment\n"
        'game "x # not a comment"  # a comment\n'
        "action a {  # after a brace\n"
        '    say "a # b"  # trailing\n'
        "    # a whole line\n"
        "}\n"
    )
    g, a = f.decls
    assert g.name == "x # not a comment"
    assert a.body[0].text.parts == ("a # b",)


def test_string_escapes():
    assert decl(r'game "a \"quoted\" name\\"').name == 'a "quoted" name\\'


def test_templates_hold_expressions_with_spans():
    text = 'card dish(number) shown "n={number}!"\naction a {\n    say "hi {me.seat + 1}, {x}"\n}\n'
    f = parse(text)
    lines = text.splitlines()
    hole = f.decls[0].shown.parts[1]
    assert (hole.span.line, hole.span.column) == (1, 29)
    assert lines[0][hole.span.column - 1 : hole.span.end_column - 1] == "number"
    say = f.decls[1].body[0]
    parts = say.text.parts
    assert [sx(p) if isinstance(p, ast.Expr) else p for p in parts] == ["hi ", "(+ (. me seat) 1)", ", ", "x"]
    expr = parts[1]
    assert (expr.span.line, expr.span.column) == (3, 14)
    assert lines[2][expr.span.column - 1 : expr.span.end_column - 1] == "me.seat + 1"
    assert f.decls[0].shown.span.line == 1


def test_a_template_without_holes_is_one_text():
    (part,) = stmt('say "no holes here"').text.parts
    assert part == "no holes here"


def test_crlf_line_endings_parse():
    f = parse('game "x"\r\nplayers 2..4\r\naction a {\r\n  say "hi"\r\n}\r\n')
    assert [type(d) for d in f.decls] == [ast.GameName, ast.Players, ast.Action]
    assert f.decls[2].body[0].span.line == 4


# ---------------------------------------------------------------- syntax errors


def test_error_format_is_compiler_style_with_source_line_and_caret():
    text = 'game "x"\naction a when 1 = 2 { }\n'
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text(text, "games/x.rules")
    assert str(info.value) == info.value.format()
    assert info.value.format() == (
        "games/x.rules:2:17: error: unexpected '='\n"
        "  action a when 1 = 2 { }\n"
        "                  ^\n"
        "  hint: to compare, write '=='"
    )


def test_caret_is_as_wide_as_the_bad_token():
    (d,) = errors("zone z stack\n")
    assert where(d) == (1, 8)
    assert d.message == "unexpected 'stack'"
    lines = d.format({"t.rules": "zone z stack\n"}).splitlines()
    assert lines[0].startswith("t.rules:1:8: error: unexpected 'stack'")
    assert lines[1] == "  zone z stack"
    assert lines[2] == "         ^^^^^"
    assert "':'" in (d.hint or "")


def test_unfinished_statement_points_at_the_brace():
    (d,) = errors('game "x"\naction a {\n    move x\n}\n')
    assert where(d) == (4, 1)
    assert d.message == "unexpected '}'"
    assert "'to'" in d.hint and "unfinished" in d.hint


def test_single_quotes_get_a_hint():
    (d,) = errors("game 'x'\n")
    assert where(d) == (1, 6)
    assert "double quotes" in d.hint


def test_unexpected_character_is_located():
    (d,) = errors('game "x"\nplayers 2..4 $\n')
    assert where(d) == (2, 14)
    assert "'$'" in d.message


def test_a_statement_at_the_top_level():
    (d,) = errors("move x to y\n")
    assert where(d) == (1, 1)
    assert d.message == "unexpected 'move'"
    assert "'action'" in d.hint


def test_missing_closing_brace_at_end_of_file_names_the_brace():
    text = 'game "x"\nplayers 2..4\naction a {\n    say "hi"\n'
    (d,) = errors(text)
    assert where(d) == (3, 10)
    assert d.message == "unclosed '{'"
    assert "'}'" in d.hint
    out = rulesdsl.RulesError([d], {"t.rules": text}).format()
    assert out.splitlines()[1:3] == ["  action a {", "           ^"]


def test_missing_closing_brace_of_an_inner_block_names_the_outer_one():
    # The last `}` closes `if`, so it is `action`'s brace that stays open.
    (d,) = errors('action a {\n    if yes {\n        say "x"\n    }\n')
    assert where(d) == (1, 10)
    assert "unclosed '{'" in d.message


def test_missing_brace_before_a_keyword_declaration_names_the_brace_and_the_declaration():
    text = 'game "x"\naction a {\n  if yes {\n    say "hi"\n}\naction b {\n}\n'
    ds = errors(text)
    assert where(ds[0]) == (2, 10)
    assert "unclosed '{'" in ds[0].message and "line 6" in ds[0].message


@pytest.mark.parametrize("next_decl", ["action b {\n}", "zone d: stack", "game ends when yes", "players 2..4"])
def test_missing_brace_before_the_next_declaration_names_the_brace(next_decl):
    text = f'game "x"\naction a {{\n    say "hi"\n\n{next_decl}\n'
    ds = errors(text)
    assert any("unclosed '{'" in d.message and where(d) == (2, 10) for d in ds), [d.message for d in ds]


def test_unclosed_parenthesis_is_named():
    (d,) = errors("define x = count(a\n")
    assert where(d) == (1, 17)
    assert d.message == "unclosed '('"


def test_bad_expression_inside_a_template_is_located_in_the_string():
    (d,) = errors('action a { say "{1 +}" }\n')
    assert d.span.line == 1 and 17 <= d.span.column <= 21
    assert "{1 +}" in d.message


def test_several_broken_declarations_are_all_reported():
    text = (
        'game "x"\n'
        "players 2..4\n"
        "zone z stack\n"  # missing ':'
        "card a\n"
        "param = 3\n"  # missing name
        "action a { move x }\n"  # unfinished statement
        "card b\n"
    )
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text(text, "t.rules")
    ds = info.value.diagnostics
    assert [where(d) for d in ds] == [(3, 8), (5, 7), (6, 19)]
    out = info.value.format()
    assert out.startswith("t.rules:3:8: error: unexpected 'stack'")
    assert "t.rules:5:7: error: unexpected '='" in out
    assert "t.rules:6:19: error: unexpected '}'" in out
    assert out.endswith("\n3 errors")


def test_errors_in_several_blocks_are_all_reported():
    text = (
        "action a {\n"
        "    move x\n"
        "}\n"
        "action b {\n"
        "    if x = 1 { }\n"
        "}\n"
        "setup {\n"
        "    deal 3 from draw to\n"
        "}\n"
    )
    ds = errors(text)
    assert [d.span.line for d in ds] == [3, 5, 9]


def test_an_unfinished_declaration_mid_file_gives_one_error():
    ds = errors('game "x"\nplayers 2..\nzone z: stack\n')
    assert len(ds) == 1
    assert all("end of file" not in d.message for d in ds)


def test_an_error_right_after_an_unfinished_declaration_is_reported():
    ds = errors('game "x"\nplayers 2..\nzone z stack\n')
    assert (3, 8) in [where(d) for d in ds]
    assert len(ds) == 2


def test_unterminated_string_says_so():
    (d,) = errors('game "Tempurra\nplayers 2..4\n')
    assert where(d) == (1, 6)
    assert "string" in d.message.lower() or "string" in (d.hint or "").lower()


def test_match_with_two_else_cases_is_a_rules_error():
    ds = errors('define x = match 1 { 1: 2, else: 3, else: 4 }\n')
    assert where(ds[0]) == (1, 12)
    assert "else" in ds[0].message


def test_an_else_label_needs_may_choose():
    ds = errors('action a {\n    choose c in me.hand else "pass"\n}\n')
    assert where(ds[0]) == (2, 5)
    assert "may choose" in ds[0].message


def test_parse_expr_errors_are_rules_errors():
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_expr("a or", "<e>")
    assert info.value.diagnostics[0].span.file == "<e>"


@pytest.mark.parametrize(
    "text",
    [
        "}",
        "{",
        "game",
        'game "x"\x00',
        "players 2..4 é",
        "card café",
        '"',
        "\t\t}",
        "action a { say \"{\" }",
        "action a { say \"{{me}}\" }",
        'action a { say "{"x"}" }',
        "define x = ((((1)))",
        "define x = 1))",
        "rank by",
        "game ends when",
        "zone z:",
        "cards in d { 3 }",
        "procedure p(a) { }",
        "action { }",
        "card a(1)",
        "param x = 1 in 3",
        "\ufeffgame \"bom\"",
        "players 2..4 default",
        "if yes { }",
        "action a { else { } }",
        "action a { choose in x }",
    ],
)
def test_malformed_input_raises_only_rules_error(text):
    try:
        parse_text(text, "t.rules")
    except rulesdsl.RulesError as e:
        out = e.format()
        assert re.match(r"(t\.rules:\d+:\d+: )?error: ", out), out
        assert "Traceback" not in out


@pytest.mark.parametrize(
    "text",
    [
        "define x = " + " + ".join(["1"] * 1000),
        "action a {" + "if yes {" * 400 + "}" * 400 + "}",
    ],
    ids=["long-sum", "deep-blocks"],
)
def test_very_deep_expressions_never_crash(text):
    with contextlib.suppress(rulesdsl.RulesError):
        parse_text(text, "t.rules")


# ---------------------------------------------------------------- fuzzing


LINES = TEMPURRA.splitlines(keepends=True)
TOKENS = list(re.finditer(r'"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*|\d+|\.\.|==|!=|<=|>=|\+=|-=|[^\s\w]', TEMPURRA))
REPLACEMENTS = [
    *sorted({m.group(0) for m in TOKENS}),
    "{", "}", "(", ")", "'", "$", "0", "-1", "it", "me", "none", "break", "return", "end", '"{x}"', '"{"', "\t",
]


@st.composite
def mutated_tempurra(draw) -> str:
    how = draw(st.sampled_from(["delete line", "duplicate line", "swap lines", "delete token", "change token",
                                "insert token"]))
    lines = list(LINES)
    if how.endswith("line") or how == "swap lines":
        i = draw(st.integers(0, len(lines) - 1))
        if how == "delete line":
            del lines[i]
        elif how == "duplicate line":
            lines.insert(i, lines[i])
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    m = draw(st.sampled_from(TOKENS))
    if how == "delete token":
        return TEMPURRA[: m.start()] + TEMPURRA[m.end() :]
    new = draw(st.sampled_from(REPLACEMENTS))
    if how == "change token":
        return TEMPURRA[: m.start()] + new + TEMPURRA[m.end() :]
    return TEMPURRA[: m.start()] + new + " " + TEMPURRA[m.start() :]


@given(mutated_tempurra())
def test_mutated_tempurra_loads_or_gives_located_rules_errors(text):
    try:
        rulesdsl.load_text(text, path="games/tempurra.rules")
    except rulesdsl.RulesError as e:
        assert e.diagnostics
        out = e.format()
        assert "Traceback" not in out
        for d in e.diagnostics:
            assert d.message
            if d.span is not None and d.span.line > 0:
                assert d.span.file == "games/tempurra.rules"
                assert 1 <= d.span.line <= text.count("\n") + 1
                assert d.span.column >= 1


@settings(max_examples=20)
@given(st.lists(st.sampled_from([*REPLACEMENTS, "\n", " "]), max_size=40))
def test_token_soup_parses_or_gives_rules_error(words):
    try:
        parse_text(" ".join(words), "soup.rules")
    except rulesdsl.RulesError as e:
        assert e.diagnostics


@settings(max_examples=20)
@given(st.text(max_size=60))
def test_arbitrary_text_parses_or_gives_rules_error(text):
    try:
        parse_text(text, "any.rules")
    except rulesdsl.RulesError as e:
        assert e.diagnostics
        e.format()


def test_huge_numbers_parse():
    # Big literals are fine for the parser; what they mean is the checker's business.
    d = decl("param x = 99999999999999999999999999 in 1..10")
    assert d.value == 99999999999999999999999999


# ---------------------------------------------------------------- limits: depth, numbers, many errors

DEEP = [("-", "", 335), ("not ", "", 340), ("(yes and ", ")", 340), ("min(1, ", ")", 340), ("(1 + ", ")", 400),
        ("if yes then ", " else 0", 200), ("[", "]", 300)]


@pytest.mark.parametrize(("head", "tail", "n"), DEEP)
def test_an_expression_nested_too_deeply_is_located_where_it_gets_too_deep(head, tail, n):
    (d,) = errors(f'game "G"\n\ndefine deep = {head * n}1{tail * n}\n')
    assert "nest too deeply" in d.message and "more than 64 levels" in d.message
    assert d.span.line == 3 and d.span.column > len("define deep = ") + 1  # (never 1:1)


def test_blocks_nested_too_deeply_and_a_deep_say_template_are_located():
    (d,) = errors("setup {\n" + "if yes {" * 300 + "}" * 300 + "\n}\n")
    assert "nest too deeply" in d.message and d.span.line == 2 and d.span.column > 1
    (d,) = errors('setup {\n    say "total: {' + "-" * 400 + '1}"\n}\n')
    assert "nest too deeply" in d.message and d.span.line == 2 and d.span.column > len('    say "total: {')


def test_parentheses_alone_do_not_nest():
    # (they leave no node in the tree, so any number of them is as deep as one)
    assert parse(f"define d = {'(' * 2000}1{')' * 2000}\n").decls[0].body.value == 1


def test_a_number_literal_of_4301_digits_is_located_not_a_crash():
    (d,) = errors("players 2\ndefine big = " + "9" * 4301 + "\n")
    assert where(d) == (2, 14) and "too long (4301 digits; the most is 100)" in d.message
    assert decl("define big = " + "9" * 100).body.value == int("9" * 100)


def test_recovery_after_many_valid_declarations_finds_the_one_typo():
    text = "".join(f"define d{i} = {i}\n" for i in range(8000)) + "define typo = = 1\n"
    (d,) = errors(text)
    assert where(d) == (8001, 15) and d.message == "unexpected '='"


def test_two_thousand_syntax_errors_stop_after_a_hundred_with_a_located_note():
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text('game "G"\n' + "".join(f"define e{i} = = 1\n" for i in range(2000)), "t.rules")
    ds = info.value.diagnostics
    assert len(ds) == 101 and all(d.span.line > 0 for d in ds)
    assert [where(d)[0] for d in ds[:100]] == list(range(2, 102))
    assert ds[100].message == "too many errors: stopped after 100" and where(ds[100]) == (102, 15)
    assert info.value.format().endswith("more than 100 errors")


def test_a_long_list_parses():
    (d,) = parse("define many = [" + ", ".join(["1"] * 20_000) + "]\n").decls
    assert len(d.body.items) == 20_000


# ---------------------------------------------------------------- lines as the lexer counts them


@pytest.mark.parametrize("odd", ["\x0c", "\u2028", "\u2029", "\x85", "\x0b", "\x1c", "\r"])
def test_an_odd_line_break_in_a_comment_does_not_shift_later_errors(odd):
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text(f'game "G"\n# one{odd}two\nplayers 2\nzone = 3\n', "t.rules")
    (d,) = info.value.diagnostics
    assert where(d) == (4, 6)
    assert info.value.format().splitlines()[1:3] == ["  zone = 3", "       ^"]


def test_windows_line_ends_quote_the_right_line():
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text('game "G"\r\n# note\r\nplayers 2\r\nzone = 3\r\n', "t.rules")
    assert info.value.format().splitlines()[:3] == ["t.rules:4:6: error: unexpected '='", "  zone = 3", "       ^"]


def test_a_quoted_line_never_carries_control_characters_to_the_terminal():
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text('game "\x1b[2J\x1b]0;title\x07 \x00\t" zone = 3\n', "t.rules")
    shown = info.value.format()
    assert not any(ch in shown for ch in "\x1b\x07\x00\t")
    line, caret = shown.splitlines()[1:3]
    assert line.index("=") == caret.index("^")  # (one character for one: the caret still points)


@pytest.mark.parametrize("text", ["define l = [" + "1, " * 1000 + "= ]\n", "define l = = [" + "1, " * 1000 + "]\n",
                                  "define l = [" + "1, " * 500 + "= " + "1, " * 500 + "]\n"])
def test_a_long_line_is_quoted_around_the_place_with_the_caret_under_it(text):
    with pytest.raises(rulesdsl.RulesError) as info:
        parse_text(text, "t.rules")
    line, caret = info.value.format().splitlines()[1:3]
    assert len(line) <= 2 + 3 + 160 + 3
    assert line[caret.index("^")] == "="
