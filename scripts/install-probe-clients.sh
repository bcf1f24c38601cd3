#!/usr/bin/env bash
# Installs the real clients `retrylint probe` is tested against (tests/probe_clients.rs):
# curl from Debian's packages, urllib3 from PyPI, got, axios and axios-retry from npm
# (tests/clients/package-lock.json, into the gitignored tests/clients/node_modules).
# Present ones are kept; run as root (CI is) or with sudo for apt.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v curl >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing curl from Debian's packages"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq curl >/dev/null
fi
curl --version | head -1
if ! python3 -c 'import urllib3' 2>/dev/null; then
  echo "installing urllib3 from PyPI"
  python3 -m pip install --quiet 'urllib3>=2,<3' || python3 -m pip install --quiet --user 'urllib3>=2,<3'
fi
python3 -c 'import urllib3; print("urllib3", urllib3.__version__)'
npm ci --prefix tests/clients --no-audit --no-fund --silent
node -e 'for (const p of ["got", "axios", "axios-retry"]) console.log(p, require("./tests/clients/node_modules/" + p + "/package.json").version)'
