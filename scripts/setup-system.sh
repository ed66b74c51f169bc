#!/usr/bin/env bash
# Installs what the test suite needs that is not an npm package. Idempotent: packages
# already present are skipped, so a second run costs a few dpkg queries and one version
# check, and nothing else.
#   chromium       the real browser the browser tests drive (playwright-core, /usr/bin/chromium)
#   fonts-dejavu   so pages render with real glyphs in screenshots
#   build-essential, python3  better-sqlite3 compiles from source when no prebuilt binary can be fetched
#   nginx          the real Nginx the Nginx tests, `npm run start:nginx` and the bench run (as a user, no service)
#   zip, unzip     `npm run bundle` writes the Elastic Beanstalk source bundle with zip; its test unpacks it
#   python3-venv   for the virtualenv below
#   cfn-lint       (PyPI, pinned) in the virtualenv .venv-cfn-lint/ at the repo's root (gitignored):
#                  the deployment tests lint the CloudFormation Resources in .ebextensions with it
# It also makes sure a system user "nginx" exists: the Elastic Beanstalk rendering of the Nginx
# config runs its workers as that user (Amazon Linux's), and `nginx -t` checks that it exists.
set -euo pipefail

packages=(chromium fonts-dejavu-core build-essential python3 nginx zip unzip python3-venv)
cfn_lint_version=1.58.0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

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
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! id nginx >/dev/null 2>&1; then
  echo "setup-system: adding the system user nginx"
  $SUDO useradd --system --no-create-home --shell /usr/sbin/nologin nginx
fi

venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-cfn-lint"
if [ -x "$venv/bin/cfn-lint" ] && [ "$("$venv/bin/cfn-lint" --version 2>/dev/null)" = "cfn-lint $cfn_lint_version" ]; then
  echo "setup-system: cfn-lint $cfn_lint_version present ($venv)"
else
  echo "setup-system: installing cfn-lint==$cfn_lint_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "cfn-lint==$cfn_lint_version"
  "$venv/bin/cfn-lint" --version
fi
echo "setup-system: done"
