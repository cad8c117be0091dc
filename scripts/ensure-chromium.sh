#!/usr/bin/env bash
# Debian's Chromium for Playwright (never Playwright's own browser download): the full browser
# (headed recording) and the old headless shell (every headless run: half the CPU per episode).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's ${missing[*]} (apt-get) ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
if [ -x /usr/bin/chromium ]; then
  echo "chromium-headless-shell is missing: headless runs use the full chromium (slower);" \
       "install it as root: apt-get install chromium-headless-shell" >&2
  exit 0
fi
echo "Chromium is missing: install Debian's packages as root:" \
     "apt-get install chromium chromium-headless-shell" >&2
echo "(webtraj drives /usr/bin/chromium; it never downloads a browser of its own)" >&2
exit 1
