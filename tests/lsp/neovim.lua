-- Neovim 0.7.2 (Debian) as a real LSP client of `retrylint lsp`: open the example
-- shop's policy, read the RL201 finding from vim.diagnostic.get(), apply the
-- "Suppress RL201" code action and check the buffer. Writes OK or FAIL lines to $OUT.
local bin, root, out_path = os.getenv('RETRYLINT_BIN'), os.getenv('ROOT'), os.getenv('OUT')
local out = io.open(out_path, 'w')
local function finish(line, code)
  out:write(line .. '\n')
  out:close()
  vim.cmd(code == 0 and 'qa!' or ('cquit ' .. code))
end

vim.cmd('edit ' .. root .. '/shop.retry-policy.yaml')
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ name = 'retrylint', cmd = { bin, 'lsp' }, root_dir = root })
if not id then finish('FAIL start_client', 1) end
vim.lsp.buf_attach_client(buf, id)

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end
local function rl201()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code_of(d) == 'RL201' then return d end
  end
end

if not vim.wait(120000, function() return rl201() ~= nil end, 50) then
  finish('FAIL no RL201 diagnostic', 1)
end
local d = rl201()
out:write(string.format('RL201 %d:%d-%d:%d severity=%d\n', d.lnum, d.col, d.end_lnum, d.end_col, d.severity))

local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
  context = { diagnostics = {} },
}
local replies = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 60000)
local action
for _, reply in pairs(replies or {}) do
  for _, a in ipairs(reply.result or {}) do
    if a.title:find('^Suppress RL201') then action = a end
  end
end
if not action then finish('FAIL no Suppress RL201 action: ' .. vim.inspect(replies):gsub('\n', ' '), 1) end
vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
out:write('LINE ' .. vim.api.nvim_buf_get_lines(buf, 28, 29, false)[1] .. '\n')

-- The edit goes to the server as a didChange; the finding goes away.
if not vim.wait(120000, function() return rl201() == nil end, 50) then
  finish('FAIL RL201 still reported after the suppression', 1)
end
finish('OK', 0)
