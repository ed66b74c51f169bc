#!/bin/bash
# Writes /etc/nginx/kiosk-origin-secret.conf, which .platform/nginx/nginx.conf includes: the map
# from the X-Kiosk-Origin-Secret header that CloudFront adds (.ebextensions/10-cloudfront.config)
# to $kiosk_origin_verified. 1 for the value of the environment property ORIGIN_SECRET (and of
# ORIGIN_SECRET_PREVIOUS while a rotation reaches every edge location), 0 for anything else, so
# Nginx answers 403 to requests that went around CloudFront; with ORIGIN_SECRET unset, 1 for every
# request (nothing checked). The same text as originSecretConf() in scripts/nginx/render.ts (a
# test compares them). Runs before the platform configures Nginx, on each deployment (hooks/)
# and each configuration change such as eb setenv ORIGIN_SECRET=... (confighooks/, an identical copy).
set -euo pipefail
# KIOSK_GET_CONFIG and KIOSK_NGINX_DIR let the tests run this off an instance.
get_config=${KIOSK_GET_CONFIG:-/opt/elasticbeanstalk/bin/get-config}
conf=${KIOSK_NGINX_DIR:-/etc/nginx}/kiosk-origin-secret.conf

property() {
  "$get_config" environment -k "$1" 2>/dev/null || true
}

secrets=()
for name in ORIGIN_SECRET ORIGIN_SECRET_PREVIOUS; do
  value=$(property "$name")
  [ -z "$value" ] && continue
  if ! [[ "$value" =~ ^[A-Za-z0-9_-]{32,128}$ ]]; then
    # A refused value fails the deployment visibly rather than leaving the origin open.
    echo "origin-secret: $name must be 32 to 128 letters, digits, \"-\" or \"_\" (openssl rand -hex 32)" >&2
    exit 1
  fi
  secrets+=("$value")
done

tmp=$(mktemp "$conf.XXXXXX")
chmod 600 "$tmp"
{
  echo 'map $http_x_kiosk_origin_secret $kiosk_origin_verified {'
  if [ ${#secrets[@]} -eq 0 ]; then
    echo '    default 1;'
  else
    echo '    default 0;'
    for secret in "${secrets[@]}"; do echo "    \"~^${secret}\$\" 1;"; done
  fi
  echo '}'
} >"$tmp"
mv "$tmp" "$conf"
echo "origin-secret: $conf written (${#secrets[@]} secret(s) accepted)"
