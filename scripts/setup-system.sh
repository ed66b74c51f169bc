#!/usr/bin/env bash
# Installs what the test suite needs that is not an npm package. Idempotent: packages
# already present are skipped, so a second run costs a few dpkg queries and one version
# check, and nothing else.
#   chromium       the real browser the browser tests drive (playwright-core, /usr/bin/chromium)
#   fonts-dejavu   so pages render with real glyphs in screenshots
#   build-essential, python3  better-sqlite3 compiles from source when no prebuilt binary can be fetched
#   python3-venv   for the virtualenv below
#   moto[server]   (PyPI, pinned) in the virtualenv .venv-moto/ at the repo's root (gitignored):
#                  the AWS API emulator the CloudWatch tests send metrics, dashboards and alarms to
set -euo pipefail

packages=(chromium fonts-dejavu-core build-essential python3 python3-venv)
moto_version=5.2.5

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all present (${packages[*]})"
else
  echo "setup-system: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-moto"
if [ -x "$venv/bin/moto_server" ] && [ "$("$venv/bin/python" -c 'import moto; print(moto.__version__)' 2>/dev/null)" = "$moto_version" ]; then
  echo "setup-system: moto $moto_version present ($venv)"
else
  echo "setup-system: installing moto[server]==$moto_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "moto[server]==$moto_version"
  "$venv/bin/moto_server" --help >/dev/null
fi
echo "setup-system: done"
