"""The language server (`rulesdsl lsp`): diagnostics as you type, hover, definitions, references,
completion, the outline and formatting of a rules file, for any editor that speaks the Language
Server Protocol (docs/editors.md). analysis.py knows the files; server.py speaks the protocol,
with pygls, an optional extra: `pip install 'rulesdsl[lsp]'`."""
