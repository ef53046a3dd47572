#!/usr/bin/env bash
# PowerDNS Authoritative with its sqlite backend, and dig, for the DNS tests (test/support/powerdns.ts
# runs a private server per suite from a folder of its own). Installs the Debian packages when
# pdns_server, the sqlite backend's schema, dig or sqlite3 are missing; starts no daemon.
#   bash scripts/ensure-powerdns.sh
set -euo pipefail

PACKAGES="pdns-server pdns-backend-sqlite3 dnsutils sqlite3"
SCHEMA=/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql
log() { printf '%s\n' "$*" >&2; }

if [ -x /usr/sbin/pdns_server ] && [ -f "$SCHEMA" ] && command -v dig >/dev/null && command -v sqlite3 >/dev/null; then
  exit 0
fi

log "installing $PACKAGES from Debian packages"
export DEBIAN_FRONTEND=noninteractive
install() {
  # Another install may hold the dpkg lock for a while: wait for it rather than fail.
  # shellcheck disable=SC2086
  apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $PACKAGES >/dev/null
}
if ! install; then
  log "retrying after apt-get update"
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  install
fi
# The package may have started a daemon where an init system runs; the tests need none.
exit 0
