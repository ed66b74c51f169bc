#!/bin/bash
# Makes the directory of the last good copies (LAST_GOOD_DIR, .ebextensions/06-environment.config):
# the Node workers, which run as webapp, write a copy of each page they render there and the
# primary removes them; Nginx, which runs as nginx, only reads them (location @last_good in
# .platform/nginx/nginx.conf), so the directory and its parents are mode 0755 and the copies
# 0644. Runs before the platform configures Nginx, on each deployment (hooks/) and each
# configuration change such as eb setenv LAST_GOOD_DIR=... (confighooks/, an identical copy).
set -euo pipefail
# KIOSK_GET_CONFIG and KIOSK_LAST_GOOD_OWNER let the tests run this off an instance.
get_config=${KIOSK_GET_CONFIG:-/opt/elasticbeanstalk/bin/get-config}
owner=${KIOSK_LAST_GOOD_OWNER:-webapp}

dir=$("$get_config" environment -k LAST_GOOD_DIR 2>/dev/null || true)
if [ -z "$dir" ]; then
  echo "last-good: LAST_GOOD_DIR is not set; no copies are kept"
  exit 0
fi
# The same rule as server/config.ts: an absolute path Nginx can take as it is, never a system directory.
if ! [[ "$dir" =~ ^/[A-Za-z0-9._/-]+$ ]] || [[ "$dir" =~ (^|/)\.\.?(/|$) ]] || [ "$(echo "$dir" | tr -s / | awk -F/ '{print NF-1}')" -lt 2 ]; then
  echo "last-good: LAST_GOOD_DIR must be an absolute directory of its own, such as /var/lib/kiosk/last-good; got \"$dir\"" >&2
  exit 1
fi
install -d -m 0755 "$(dirname "$dir")"
install -d -o "$owner" -g "$owner" -m 0755 "$dir"
echo "last-good: $dir ready for $owner, readable by Nginx"
