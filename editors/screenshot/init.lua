-- The Neovim setup of docs/images/editor-*.png (take.sh): Neovim 0.7, as Debian 12 has it.
vim.filetype.add({ extension = { rules = "rulesdsl" } })
vim.o.number = true
vim.o.signcolumn = "yes"
vim.api.nvim_create_autocmd("FileType", {
  pattern = "rulesdsl",
  callback = function(args)
    local id = vim.lsp.start_client({
      name = "rulesdsl",
      cmd = { "rulesdsl", "lsp" },
      root_dir = vim.fn.getcwd(),
    })
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
vim.cmd("syntax on")
vim.cmd("setlocal commentstring=#\\ %s")
-- (Neovim 0.7 reads filetype.lua only when asked; 0.10 does by default)
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, { pattern = "*.rules", command = "set filetype=rulesdsl" })
vim.o.termguicolors = true
vim.cmd("highlight Normal guibg=#1e1e1e guifg=#d4d4d4")
vim.cmd("highlight NormalFloat guibg=#303036 guifg=#e0e0e0")
vim.cmd("highlight LineNr guifg=#6e7681")
vim.cmd("highlight SignColumn guibg=#1e1e1e")
vim.cmd("highlight DiagnosticError guifg=#f14c4c")
vim.cmd("highlight DiagnosticUnderlineError gui=undercurl guisp=#f14c4c")
vim.cmd("highlight Comment guifg=#6a9955")
