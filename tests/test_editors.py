"""The TextMate grammar of editors/ against rulesdsl/grammar.lark, so the two cannot drift: every
word of the language is highlighted as a keyword (a word added to grammar.lark fails here until
the highlighting knows it), and every game of games/ highlights as the parser reads it (comments,
strings, numbers, keywords and names where Lark's lexer finds them). The grammar is run by a
small TextMate engine below (match, begin/end, captures, include): the subset the file uses."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from rulesdsl.parser import GRAMMAR, lark_parser

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
TM_GRAMMAR = VSCODE / "syntaxes" / "rulesdsl.tmLanguage.json"
GAME_FILES = sorted((ROOT / "games").rglob("*.rules"))
# Words the language is gaining (issue 23: secret information and simultaneous moves): highlighted
# before they reach grammar.lark, so an editor does not show them as names meanwhile.
COMING = {"secretly", "simultaneously", "race", "at", "random", "secret"}
KEYWORD_SCOPES = ("storage.type", "keyword.control", "keyword.other", "keyword.operator.word", "constant.language")
# A keyword in a place where it is a name (the parser's lexer is contextual): an attribute (`c.rank`), a
# call (`top(deck)`), a value (`winners`), a name declared (`action play`, `card reverse`).
NAME_SCOPES = ("variable.other.property", "support.function.builtin", "variable.language", "entity.name",
               "variable.other.definition")


# ---------------------------------------------------------------- a small TextMate engine


@cache
def tm_grammar() -> dict:
    return json.loads(TM_GRAMMAR.read_text(encoding="utf-8"))


def _patterns(items: list[dict]) -> list[dict]:
    out = []
    for p in items:
        if "include" in p:
            out.extend(_patterns([tm_grammar()["repository"][p["include"][1:]]]))
        elif "patterns" in p and "match" not in p and "begin" not in p:
            out.extend(_patterns(p["patterns"]))
        else:
            out.append(p)
    return out


def tokenize_line(line: str) -> list[tuple[str, tuple[str, ...]]]:
    """The line cut into (text, scopes), scopes from the outermost (source.rulesdsl) inwards."""
    out: list[tuple[str, tuple[str, ...]]] = []
    stack: list[tuple[dict, tuple[str, ...]]] = [({"patterns": tm_grammar()["patterns"]}, ("source.rulesdsl",))]
    pos = 0
    while pos <= len(line):
        rule, scopes = stack[-1]
        found = []
        if "end" in rule:
            m = re.compile(rule["end"]).search(line, pos)
            if m:
                found.append((m.start(), -1, m, None))
        for k, p in enumerate(_patterns(rule["patterns"])):
            m = re.compile(p.get("match") or p["begin"]).search(line, pos)
            if m:
                found.append((m.start(), k, m, p))
        if not found:
            out.append((line[pos:], scopes))
            break
        start, _, m, p = min(found, key=lambda f: (f[0], f[1]))
        if start > pos:
            out.append((line[pos:start], scopes))
        if p is None:  # the rule's end
            out.extend(_captured(m, scopes, rule.get("endCaptures", {})))
            stack.pop()
        elif "match" in p:
            out.extend(_captured(m, scopes + ((p["name"],) if "name" in p else ()), p.get("captures", {})))
        else:
            inner = scopes + ((p["name"],) if "name" in p else ())
            out.extend(_captured(m, inner, p.get("beginCaptures", {})))
            stack.append((p, inner + ((p["contentName"],) if "contentName" in p else ())))
        if m.end() == pos and p is not None and "match" in p:
            pos += 1  # (an empty match: move on)
        pos = max(pos, m.end())
        if pos == len(line) and len(stack) == 1:
            break
    return [(t, s) for t, s in out if t]


def _captured(m: re.Match, scopes: tuple[str, ...], captures: dict) -> list[tuple[str, tuple[str, ...]]]:
    if not captures:
        return [(m.group(0), scopes)]
    out, pos = [], m.start()
    for k in sorted(int(g) for g in captures):
        if k == 0 or m.start(k) < 0:
            continue
        out.append((m.string[pos:m.start(k)], scopes))
        out.append((m.group(k), (*scopes, captures[str(k)]["name"])))
        pos = m.end(k)
    out.append((m.string[pos:m.end()], scopes))
    return out


def scope_at(tokens: list[tuple[str, tuple[str, ...]]], col: int) -> tuple[str, ...]:
    at = 0
    for text, scopes in tokens:
        if at <= col < at + len(text):
            return scopes
        at += len(text)
    return ()


# ---------------------------------------------------------------- the words of the language


def grammar_words() -> set[str]:
    """Every word grammar.lark quotes, and the terminals that are words (yes, no, may, ...)."""
    words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', GRAMMAR.read_text(encoding="utf-8")))
    for t in lark_parser().terminals:
        if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_]\w*", t.pattern.value):
            words.add(t.pattern.value)
    return words


def test_the_grammar_words_are_read():
    assert {"game", "zone", "action", "choose", "yes", "lowest", "where"} <= grammar_words()


@pytest.mark.parametrize("word", sorted(grammar_words() | COMING))
def test_every_word_of_the_grammar_is_highlighted_as_a_keyword(word):
    tokens = tokenize_line(f"x {word} y")
    scopes = scope_at(tokens, 2)
    assert any(s.startswith(KEYWORD_SCOPES) for s in scopes), (word, tokens)
    assert not any(s.startswith(KEYWORD_SCOPES) for s in scope_at(tokens, 0))


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT / "games")))
def test_the_games_highlight_as_the_parser_reads_them(path):
    """Each token of Lark's lexer has the highlighting of its kind, at its place."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    tokenized = [tokenize_line(line) for line in lines]
    words = grammar_words()
    for tok in lark_parser().lex(text, dont_ignore=True):
        if tok.type == "WS" or tok.line is None:
            continue
        line = lines[tok.line - 1]
        scopes = " ".join(scope_at(tokenized[tok.line - 1], tok.column - 1))
        where = f"{path.name}:{tok.line}:{tok.column} {tok!s:.30}"
        if tok.type == "COMMENT":
            assert "comment.line" in scopes, where
        elif tok.type == "STRING":
            assert "string.quoted" in scopes, where
        elif tok.type == "INT":
            assert "constant.numeric" in scopes, where
        elif str(tok) in words:
            assert any(s in scopes for s in KEYWORD_SCOPES + NAME_SCOPES), where
        elif tok.type == "NAME":
            assert not any(s in scopes for s in KEYWORD_SCOPES), where
            assert "string" not in scopes and "comment" not in scopes, where
        assert "".join(t for t, _ in tokenized[tok.line - 1]) == line


def test_a_strings_values_are_highlighted_as_expressions():
    tokens = tokenize_line('say "{me} takes {count(c.rank)} cards" # done')
    kinds = {text: scopes[-1] for text, scopes in tokens}
    assert kinds["me"] == "variable.language.rulesdsl"
    assert kinds["count"] == "support.function.builtin.rulesdsl"
    assert kinds["rank"] == "variable.other.property.rulesdsl"
    assert kinds[" takes "] == "string.quoted.double.rulesdsl"
    assert kinds["# done"] == "comment.line.number-sign.rulesdsl"


def test_declared_names_are_highlighted_as_declarations():
    assert scope_at(tokenize_line("define points(c: card) = 1"), 8)[-1] == "entity.name.function.rulesdsl"
    assert scope_at(tokenize_line("zone deck: stack"), 6)[-1] == "variable.other.definition.rulesdsl"
    assert scope_at(tokenize_line("card playing(rank)"), 6)[-1] == "entity.name.type.rulesdsl"


def test_the_vscode_folder_is_an_extension_for_rules_files():
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [language] = package["contributes"]["languages"]
    [grammar] = package["contributes"]["grammars"]
    assert language["extensions"] == [".rules"]
    assert (VSCODE / grammar["path"]).resolve() == TM_GRAMMAR
    assert grammar["scopeName"] == tm_grammar()["scopeName"] and grammar["language"] == language["id"]
    assert (VSCODE / language["configuration"]).is_file() and (VSCODE / package["main"]).is_file()
    assert package["contributes"]["configuration"]["properties"]["rulesdsl.server.command"]["default"] == [
        "rulesdsl", "lsp"]


def test_the_helix_and_neovim_settings_of_docs_editors_md_start_the_server():
    import tomllib

    from rulesdsl.cli import build_parser

    doc = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    [toml] = re.findall(r"```toml\n(.*?)```", doc, re.S)
    helix = tomllib.loads(toml)
    server = helix["language-server"]["rulesdsl"]
    [language] = helix["language"]
    assert [server["command"], *server["args"]] == ["rulesdsl", "lsp"]
    assert language["scope"] == tm_grammar()["scopeName"] and language["file-types"] == ["rules"]
    assert language["language-servers"] == ["rulesdsl"]
    fmt = language["formatter"]
    assert fmt["command"] == "rulesdsl" and build_parser().parse_args(fmt["args"]).command == "fmt"
    lua = re.findall(r"```lua\n(.*?)```", doc, re.S)
    assert len(lua) == 2 and all('cmd = { "rulesdsl", "lsp" }' in block for block in lua)
    assert all('extension = { rules = "rulesdsl" }' in block for block in lua)
