#!/bin/sh
# Takes docs/images/editor-diagnostics-hover.png and editor-hover-attribute.png: Neovim (init.lua
# here) in an xterm on a virtual display, games/tamalo.rules open with `shuffle deck` mistyped in
# `setup`, then a hover on `square_size` and one on `rank`. Run from the repository's root, with
# `rulesdsl` (and pygls) on PATH. Needs (Debian): neovim xvfb xterm x11-apps imagemagick fonts-dejavu-core.
set -eu
here=$(dirname "$0")
work=$(mktemp -d)
cp -r games "$work/games" && touch "$work/pyproject.toml"
export DISPLAY=:99
Xvfb :99 -screen 0 1400x900x24 >/dev/null 2>&1 & xvfb=$!
sleep 1
xterm -geometry 140x30+0+0 -fa 'DejaVu Sans Mono' -fs 11 -bg '#1e1e1e' -fg '#d4d4d4' \
    -e nvim --listen "$work/nvim.sock" -u "$here/init.lua" "$work/games/tamalo.rules" & term=$!
sleep 4
send() { nvim --server "$work/nvim.sock" --remote-send "$1"; sleep "$2"; }
shot() { xwd -root -silent | convert xwd:- -crop "$1" -colors 64 "docs/images/$2"; }
send ':38s/shuffle deck/shuffle dek/<CR>:nohlsearch<CR>:call cursor(39, 12)<CR>zz' 3
send ':lua vim.lsp.buf.hover()<CR>' 2
shot 1190x560+0+0 editor-diagnostics-hover.png
send '<Esc>:call cursor(26, 34)<CR>zt' 1
send ':lua vim.lsp.buf.hover()<CR>' 2
shot 1190x300+0+0 editor-hover-attribute.png
send '<Esc>:qa!<CR>' 1
kill "$term" "$xvfb" 2>/dev/null || true
rm -rf "$work"
