#!/usr/bin/env bash
# Installs what the browser test (`report --format html` in headless Chromium) and the
# editor test (`retrylint lsp` under headless Neovim) need, from Debian's packages.
# Already-present programs are kept; run as root (CI is) or with sudo.
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v nvim >/dev/null || missing+=(neovim)
if [ ${#missing[@]} -eq 0 ]; then
  echo "chromium and nvim present: $(chromium --version 2>/dev/null | head -1); $(nvim --version | head -1)"
  exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
echo "installing from Debian's packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
chromium --version | head -1
nvim --version | head -1
