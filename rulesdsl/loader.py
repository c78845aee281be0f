"""From a path to the declarations of one game: imports followed, variants resolved.

`import "FILE"` brings another file's declarations in; `import prelude "NAME"` brings in a
library's prelude by name (the bundled `standard52`), from anywhere. `extends "FILE"` makes this
file a variant: the base's declarations come first, then this file's, where `replace DECL` takes
the place of the base's declaration of the same thing and `remove ...` drops it. Replacing or
removing what the base lacks, or declaring again what it has without `replace`, is a located error.

A rules file is untrusted, so what it may make us read is narrow (docs/language.md, "Where
imports may point"): only regular files named `*.rules`, in UTF-8, `MAX_BYTES` in all,
inside the allowed roots (the top file's project, the libraries, `--allow-path`),
symbolic links resolved first. A file refused is never read, so no error can quote it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import attrs

from . import ast, bundled
from .errors import Diagnostic, RulesError, did_you_mean
from .parser import parse_text

# Declarations a variant may simply write again: its own name and player counts win.
HEADERS = ("game", "players")
# Declarations a game may have several of: a variant's own adds one more (`replace` swaps them all).
ADDITIVE = ("ends", "cards")

# Declarations with no name (ast.decl_key is None): a variant adds them, and cannot replace them.
UNNAMED = {ast.Show: "a `show` line", ast.Import: "an `import`"}

SUFFIX = ".rules"
# The rules text one load reads, in all its files: 128 KiB (the seed games, with what they import,
# are under 20 KiB). Parsing takes up to some 30 microseconds a byte (`[1,1,1,...]`: 256 KiB of it
# took 7.6 s), so this bounds a load to about 4 s.
MAX_BYTES = 1 << 17
MAX_FILES = 256  # files read through imports and extends in one load (a diamond of imports grows fast)
# A folder holding one of these is a project: the top file's imports may reach anywhere inside it.
PROJECT_MARKERS = (".git", "pyproject.toml")
# Libraries: folders searched after the importing file's own folder, and always allowed. Each
# holds its preludes in prelude/NAME.rules (`import prelude "NAME"`). The bundled games are one
# (so an installed variant may extend ../base.rules); a package that ships preludes adds its own.
LIBRARY_ROOTS: list[Path] = [bundled.GAMES] if bundled.GAMES is not None else []


@attrs.frozen
class Roots:
    """Where one load may read: resolved folders, each file read must lie inside one of them."""

    allowed: tuple[Path, ...]
    library: tuple[Path, ...]
    max_bytes: int = MAX_BYTES

    @classmethod
    def of(cls, top: Path, allow_paths: Iterable[str | Path] = (), max_bytes: int = MAX_BYTES) -> Roots:
        library = tuple(_real(Path(r)) for r in LIBRARY_ROOTS if Path(r).is_dir())
        extra = tuple(_real(Path(r)) for r in allow_paths)
        return cls((project_root(top), *extra, *library), library, max_bytes)

    def holds(self, real: Path) -> bool:
        return any(real == r or real.is_relative_to(r) for r in self.allowed)


def _real(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError, ValueError):  # a loop or a bad name: a root that holds nothing
        return Path(os.path.abspath(p))


def project_root(top: Path) -> Path:
    """The folder whose tree the top file's imports may reach: the nearest folder above the top file
    that holds `.git` or `pyproject.toml` (a project: its variants in `variants/` extend
    `../base.rules`, its tests in `tests/data/` extend `../../games/x.rules`), else the top file's
    own folder. A marker in the home folder or the file system's root does not count: that would
    open every file of the user."""
    folder = _real(top).parent
    never = {Path(folder.anchor), _real(Path.home())}
    for d in (folder, *folder.parents):
        if d in never:
            break
        if any((d / m).exists() for m in PROJECT_MARKERS):
            return d
    return folder


@attrs.define
class Resolved:
    """One game's declarations, in order, with the variant's own declarations marked."""

    path: str
    decls: list[ast.Decl]
    sources: dict[str, str]
    own: list[ast.Decl] = attrs.Factory(list)  # what the variant itself says (for `explain --diff`)
    removed: list[ast.Remove] = attrs.Factory(list)
    base: str | None = None

    def files(self) -> list[ast.RulesFile]:
        """The checker's input: the merged declarations, then the other files (for their sources)."""
        main = ast.RulesFile(self.path, self.sources[self.path], tuple(self.decls), span=ast.NOWHERE)
        rest = [ast.RulesFile(p, s, (), span=ast.NOWHERE) for p, s in self.sources.items() if p != self.path]
        return [main, *rest]


def resolve(path: str | Path, allow_paths: Sequence[str | Path] = (), max_bytes: int = MAX_BYTES) -> Resolved:
    """The game at `path` with its imports and base. `allow_paths`: more folders it may read from."""
    top = Path(os.path.normpath(path)) if "\0" not in str(path) else Path(path)
    return _Loader(Roots.of(top, allow_paths, max_bytes)).resolve(top, None, ())


def read_file(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """The text of one rules file named by the user, refused as the top file of a load would be."""
    top = Path(path)
    return _Loader(Roots.of(top, (), max_bytes)).read(top, None, "read")[1]


def parse_file(path: str | Path) -> ast.RulesFile:
    """Parse one rules file (its imports not followed), read as safely as `read_file` reads."""
    return parse_text(read_file(path), str(path))


@lru_cache(maxsize=16)  # (a few files: a game and what it imports; bounded, so memory is)
def _parsed(text: str, path: str) -> ast.RulesFile:
    """A file's tree, shared by the loads of the same text (the tree is frozen): `rulesdsl test`
    loads a game again for each number of players and parameters it tries, and parsing is most of
    a load. Read anew each time, so an edited file is parsed anew."""
    return parse_text(text, path)


class _Loader:
    """One load: the roots, and how many files it has read (see MAX_FILES)."""

    def __init__(self, roots: Roots):
        self.roots = roots
        self.reads = 0
        self.left = roots.max_bytes  # of the rules text the load may still read

    def resolve(self, path: Path, via: ast.Import | ast.Extends | None, chain: tuple[Path, ...]) -> Resolved:
        what = "extend" if isinstance(via, ast.Extends) else "import"
        key, text = self.read(path, via, what)
        if key in chain:
            verb = "extends" if isinstance(via, ast.Extends) else "imports"
            raise RulesError([Diagnostic(via.span if via else None,
                                         f"'{path}' {verb} itself (through {len(chain)} files)")])
        f = self.parse(text, str(path))
        return self.declarations(f, key, chain)

    def parse(self, text: str, path: str) -> ast.RulesFile:
        """One file's text parsed (a hook: the language server keeps the files it parsed, and
        parses a file that did not change only once)."""
        return _parsed(text, path)

    def locate(self, written: str, folder: Path) -> Path:
        """An import's file: beside the importing file, else in the library (the first that has it)."""
        if "\0" in written:
            return folder / "NUL"  # (refused by `read` before any use)
        here = Path(os.path.normpath(folder / written))
        if os.path.lexists(here) or os.path.isabs(written):
            return here
        for lib in self.roots.library:
            there = Path(os.path.normpath(lib / written))
            if os.path.exists(there):
                return there
        return here

    def prelude(self, d: ast.Import) -> Path:
        """`import prelude "NAME"`: prelude/NAME.rules of the first library that has it, else a
        located error with the names there are."""
        known = bundled.prelude_files(self.roots.library)
        if d.path in known:
            return known[d.path]
        name = d.path if d.path.isprintable() else d.path.encode("unicode_escape").decode("ascii")
        there = f"the preludes are: {', '.join(known)}" if known else "no library of preludes is installed"
        if bundled.is_name(d.path):
            hint = did_you_mean(d.path, known)
            raise RulesError([Diagnostic(d.span, f"there is no prelude named '{name}'",
                                         f"{hint} ({there})" if hint else there)])
        stem = Path(d.path).name.removesuffix(SUFFIX)
        hint = f'write `import prelude "{stem}"`' if stem in known else there
        raise RulesError([Diagnostic(d.span, f"a prelude is imported by its name, not a path: '{name}'",
                                     f"{hint}; a file is imported by its path with `import \"FILE{SUFFIX}\"`")])

    def read(self, path: Path, via: ast.Decl | None, what: str) -> tuple[Path, str]:
        """The resolved path and text of a file the rules may read; else a located RulesError (at
        the import, or at 1:1 of the top file). The text of a file refused is never read."""
        def refuse(message: str, hint: str | None = None) -> RulesError:
            span = via.span if via is not None else ast.Span(shown, 1, 1, 1, 2)
            return RulesError([Diagnostic(span, message, hint)])

        by_path = isinstance(via, (ast.Import, ast.Extends)) and not getattr(via, "prelude", False)
        written = via.path if by_path else str(path)
        shown = written.encode("unicode_escape").decode("ascii") if not written.isprintable() else written
        head = f"cannot {what} '{shown}'" if via is not None else f"cannot read '{shown}'"
        if not written.strip():
            raise refuse(f"cannot {what} an empty file name", f'write the file\'s name: {what} "NAME{SUFFIX}"')
        if "\0" in written or not written.isprintable():
            raise refuse(f"{head}: a file name cannot hold control characters")
        if not written.endswith(SUFFIX):
            raise refuse(f"{head}: only {SUFFIX} files are read as rules",
                         f"rules files are named NAME{SUFFIX}" + (" (this is a folder)" if os.path.isdir(path) else ""))
        self.reads += 1
        if self.reads > MAX_FILES:
            raise refuse(f"{head}: too many files ({MAX_FILES}) read through imports and extends")
        if not self.roots.holds(Path(os.path.realpath(path))):  # (before the file's existence is told)
            raise refuse(f"{head}: it is outside the folders rules may be read from",
                         f"rules read files in {self.roots.allowed[0]} and the library of preludes; "
                         "allow another folder with --allow-path DIR")
        try:
            real = path.resolve(strict=True)
        except FileNotFoundError:
            raise refuse(f"{head}: no such file ({path})" if via is not None else f"no such file: {shown}") from None
        except RuntimeError:  # (Python before 3.13 reports a loop of symbolic links so)
            raise refuse(f"{head}: a loop of symbolic links") from None
        except OSError as e:
            raise refuse(f"{head}: {_reason(e)}") from None
        if not self.roots.holds(real):
            raise refuse(f"{head}: it is outside the folders rules may be read from")
        if real.suffix != SUFFIX:
            raise refuse(f"{head}: it is a link to '{real.name}', and only {SUFFIX} files are read as rules")
        data = _read_regular(real, self.left, refuse, head, self.roots.max_bytes)
        self.left -= len(data)
        try:
            return real, data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise refuse(f"{head}: it is not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start})",
                         "save the file as UTF-8") from None

    def declarations(self, f: ast.RulesFile, key: Path, chain: tuple[Path, ...]) -> Resolved:
        path = Path(f.path)
        sources = {f.path: f.source}
        own: list[ast.Decl] = []
        extends: list[ast.Extends] = []
        errors: list[Diagnostic] = []
        for d in f.decls:
            if isinstance(d, ast.Extends):
                extends.append(d)
            elif isinstance(d, ast.Import):
                sub = self.follow(d, path, sources, (*chain, key))
                own.extend(sub.decls)
                sources.update(sub.sources)
            else:
                own.append(d)
        for extra in extends[1:]:
            errors.append(Diagnostic(extra.span, "a variant extends one file",
                                     f"it already extends '{extends[0].path}'"))
        if not extends:
            for d in own:
                if isinstance(d, (ast.Replace, ast.Remove)):
                    word = "replace" if isinstance(d, ast.Replace) else "remove"
                    errors.append(Diagnostic(d.span, f"`{word}` changes a base game, and this file extends none",
                                             'begin the file with `extends "BASE.rules"`'))
            if errors:
                raise RulesError(errors, sources)
            return Resolved(f.path, own, sources, own=own)
        base = self.follow(extends[0], path, sources, (*chain, key))
        sources.update(base.sources)
        merged, removed = _apply(base, own, errors)
        if errors:
            raise RulesError(errors, sources)
        return Resolved(f.path, merged, sources, own=[d for d in own if not isinstance(d, ast.Remove)],
                        removed=removed, base=base.path)

    def follow(self, d: ast.Import | ast.Extends, path: Path, sources: dict[str, str],
               chain: tuple[Path, ...]) -> Resolved:
        """The file an import or extends names; its errors quote the importing file too."""
        try:
            found = self.prelude(d) if isinstance(d, ast.Import) and d.prelude else self.locate(d.path, path.parent)
            return self.resolve(found, d, chain)
        except RulesError as e:
            raise RulesError(e.diagnostics, {**sources, **e.sources}) from None


def _read_regular(real: Path, limit: int, refuse, head: str, whole: int) -> bytes:
    """A regular file's bytes, at most `limit` (what is left of the load's `whole` budget). Opened
    without blocking and checked on the open file itself, so a FIFO, a device (/dev/zero,
    /dev/stdin), a folder or a file swapped after the check is never read from."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(real, flags)
    except OSError as e:
        raise refuse(f"{head}: {_reason(e)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise refuse(f"{head}: it is {kind}", f"rules are read from files named NAME{SUFFIX}")
        if info.st_size > limit:
            raise refuse(f"{head}: it is too large ({info.st_size} bytes; " + (
                f"the limit is {whole})" if limit == whole else
                f"the files read before it leave {limit} of the {whole} one load may read)"))
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # (a file that grew while read)
            raise refuse(f"{head}: it is too large (it grew over {limit} bytes while read)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _reason(e: OSError) -> str:
    """An OS error in words, without the path (which the message already names)."""
    return (e.strerror or type(e).__name__).lower()


def _apply(base: Resolved, own: list[ast.Decl], errors: list[Diagnostic]) -> tuple[list[ast.Decl], list[ast.Remove]]:
    merged: list[ast.Decl | None] = list(base.decls)
    removed: list[ast.Remove] = []

    def where(key: tuple) -> list[int]:
        return [i for i, d in enumerate(merged) if d is not None and ast.decl_key(d) == key]

    def missing(node: ast.Decl, word: str, key: tuple) -> None:
        same_kind = [ast.decl_key(d) for d in merged if d is not None and (ast.decl_key(d) or ("",))[0] == key[0]]
        names = [k[1] for k in same_kind if len(k) > 1]
        hint = did_you_mean(key[1], names) if len(key) > 1 else None
        errors.append(Diagnostic(node.span, f"cannot {word} {ast.key_words(key)}: {base.path} has none", hint))

    for d in own:
        if isinstance(d, ast.Replace):
            key = ast.decl_key(d.decl)
            if key is None:  # (`show`, `import`: a variant's own adds to the base's)
                word = UNNAMED.get(type(d.decl), "this declaration")
                errors.append(Diagnostic(d.span, f"`replace` takes the place of a declaration the base names; "
                                         f"{word} has no name to find it by",
                                         f"write {word} without `replace`: it adds to the base's"))
                continue
            spots = where(key)
            if not spots:
                missing(d, "replace", key)
                continue
            new = d.decl
            old = merged[spots[0]]
            if isinstance(new, ast.Param) and new.low is None and isinstance(old, ast.Param):
                new = attrs.evolve(new, low=old.low, high=old.high)  # a new default keeps the range
            merged[spots[0]] = _keep_words(old, new)
            for i in spots[1:]:
                merged[i] = None
        elif isinstance(d, ast.Remove):
            spots = where(d.key)
            if not spots:
                missing(d, "remove", d.key)
                continue
            for i in spots:
                merged[i] = None
            removed.append(d)
        else:
            key = ast.decl_key(d)
            spots = where(key) if key and key[0] not in ADDITIVE else []
            if spots and key[0] in HEADERS:
                merged[spots[0]] = _keep_words(merged[spots[0]], d)
            elif spots:
                first = merged[spots[0]]
                errors.append(Diagnostic(d.span, f"{ast.key_words(key)} is already in {base.path}",
                                         f"to change it, write `replace` before it (the base's is at {first.span})"))
            else:
                merged.append(d)
    return [d for d in merged if d is not None], removed


def source_of(decl: ast.Decl, sources: dict[str, str], comments: bool = True) -> str:
    """A declaration as written (with the comment lines just above it), for `rulesdsl explain`."""
    s = decl.span
    text = sources.get(s.file)
    if text is None or s.line <= 0:
        return ""
    lines = text.splitlines()
    body = lines[s.line - 1 : s.end_line]
    if body:
        body[-1] = body[-1][: s.end_column - 1] if s.end_line > s.line else body[-1][s.column - 1 : s.end_column - 1]
        if s.end_line > s.line:
            body[0] = body[0][s.column - 1 :]
    # A comment at the end of the last line belongs to the declaration too.
    tail = lines[s.end_line - 1][s.end_column - 1 :] if s.end_line - 1 < len(lines) else ""
    if tail.strip().startswith("#"):
        body[-1] += tail
    above: list[str] = []
    k = s.line - 2
    about = decl.decl.about if isinstance(decl, ast.Replace) else decl.about
    if about is not None and about.span.file == s.file and about.span.line <= s.line - 1:
        above = lines[about.span.line - 1 : s.line - 1]  # (its `about "..."`, written above it)
        k = about.span.line - 2
    while comments and k >= 0 and lines[k].strip().startswith("#"):
        above.insert(0, lines[k])
        k -= 1
    return "\n".join(above + body)


# Declarations whose description and display name say what a thing *is*, which a variant that
# replaces only its value or options does not change.
_SAME_THING = (ast.GameName, ast.Param, ast.Zone, ast.Counter, ast.Var, ast.Define)


def _keep_words(old: ast.Decl | None, new: ast.Decl) -> ast.Decl:
    """The replacing declaration, with the base's `about` and `as "..."` where it gives none
    (for a parameter, zone, counter, variable, define or the game's name; an action or hook that
    is replaced is a new rule, described anew or not at all)."""
    if not isinstance(new, _SAME_THING) or type(old) is not type(new):
        return new
    if new.about is None and old.about is not None:
        new = attrs.evolve(new, about=old.about)
    if getattr(new, "display", None) is None and getattr(old, "display", None) is not None:
        new = attrs.evolve(new, display=old.display)
    return new
