"""The language server (`rulesdsl lsp`): diagnostics as you type, hover, definitions, references,
completion and the outline of a rules file, for any editor that speaks the Language Server
Protocol (docs/editors.md). It needs pygls, an optional extra: `pip install 'rulesdsl[lsp]'`."""

from __future__ import annotations

MISSING = "the language server needs pygls: pip install 'rulesdsl[lsp]'"


def available() -> bool:
    """Whether pygls can be imported (the server is an optional extra)."""
    try:
        import pygls.lsp.server  # noqa: F401
    except ImportError:
        return False
    return True
