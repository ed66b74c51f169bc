#!/usr/bin/env bash
# Installs what the test suite needs that is not an npm package. Idempotent: packages
# already present are skipped, so a second run costs a few dpkg queries and nothing else.
#   chromium       the real browser the browser tests drive (playwright-core, /usr/bin/chromium)
#   fonts-dejavu   so pages render with real glyphs in screenshots
#   build-essential, python3  better-sqlite3 compiles from source when no prebuilt binary can be fetched
#   nginx          the real Nginx the Nginx tests, `npm run start:nginx` and the bench run (as a user, no service)
#   curl, ca-certificates     loadtest/mvnw downloads Maven itself (from Maven Central) with curl
#   openjdk-17-jdk-headless   Gatling (loadtest/) runs on a JDK; skipped when `java -version`
#                             already reports 17 or newer, whichever JDK that is
# It also makes sure a system user "nginx" exists: the Elastic Beanstalk rendering of the Nginx
# config runs its workers as that user (Amazon Linux's), and `nginx -t` checks that it exists.
set -euo pipefail

packages=(chromium fonts-dejavu-core build-essential python3 nginx curl ca-certificates)

ensure_nginx_user() {
  if id nginx >/dev/null 2>&1; then return; fi
  echo "setup-system: adding the system user nginx"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo useradd --system --no-create-home --shell /usr/sbin/nologin nginx
}

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
  ensure_nginx_user
  exit 0
fi

echo "setup-system: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
ensure_nginx_user
echo "setup-system: done"
