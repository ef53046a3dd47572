#!/usr/bin/env bash
# A one-node Ceph cluster with an S3 gateway for tests and local use (the rgw object storage
# adapter): one monitor, one OSD on memstore (data in memory, up to CEPH_MEMSTORE_BYTES), one
# radosgw on 127.0.0.1:7480, cephx off, pools of size 1. Idempotent: starts only what is not
# running; an OSD that is gone lost its memory store, so the cluster is then made afresh.
# Creates the Admin Ops user the API signs with (caps users=*;buckets=*;usage=read;metadata=read;
# with the keys in RGW_ADMIN_ACCESS_KEY / RGW_ADMIN_SECRET_KEY when both are set, else random ones)
# and prints its keys as shell exports, also kept in $CEPH_DIR/admin.env (mode 600).
#   eval "$(bash scripts/ensure-ceph.sh)"   # then OBJECT_STORAGE_PROVIDER=rgw npm start
# RGW_BIND (127.0.0.1) is the gateway's listen address (0.0.0.0 in a container).
set -Eeuo pipefail

CEPH_DIR=${CEPH_DIR:-/var/lib/hosting-ceph}
RGW_PORT=${RGW_PORT:-7480}
RGW_BIND=${RGW_BIND:-127.0.0.1}
MON_ADDR=${CEPH_MON_ADDR:-127.0.0.1:6789}
# 6 GiB: the suites beside each other hold a VPS's disks on RBD (the test image's 540 MiB and its clone),
# volumes and backups in RGW at once, and a full memstore OSD stops every one of them.
MEMSTORE_BYTES=${CEPH_MEMSTORE_BYTES:-6442450944}
PACKAGES="ceph-mon ceph-osd radosgw ceph-common"
CONF=$CEPH_DIR/ceph.conf
RUN=$CEPH_DIR/run
log() { printf '%s\n' "$*" >&2; }
# A step that fails says which, and what the daemons said last (CI shows only this script's stderr).
# A new OSD refused with 'wrong fsid' (exit 250, seen once in CI with no other Ceph process left)
# may mean that a monitor of another cluster answered: who listens on the ports, and which Ceph
# processes run, is printed too.
trap 'rc=$?; log "ensure-ceph.sh: \"$BASH_COMMAND\" failed with exit $rc (line $LINENO)"; tail -n 15 "$CEPH_DIR/log/start.log" >&2 2>/dev/null; { ss -ltnp 2>/dev/null | grep -E ":(${MON_ADDR##*:}|3300|$RGW_PORT) "; pgrep -a -f "ceph-(mon|osd)|radosgw"; } >&2 || true; exit $rc' ERR

if ! command -v ceph-mon >/dev/null || ! command -v ceph-osd >/dev/null || ! command -v radosgw >/dev/null || ! command -v ceph >/dev/null; then
  log "installing $PACKAGES from Debian packages"
  # shellcheck disable=SC2086
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
fi

# Running, and not a zombie: a daemon that exited stays one while nothing reaps it (no init here).
alive() {
  local pid
  [ -f "$RUN/$1.pid" ] && pid=$(cat "$RUN/$1.pid") && kill -0 "$pid" 2>/dev/null \
    && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$pid/stat" 2>/dev/null
}
ceph_() { timeout 20 ceph -c "$CONF" --connect-timeout 10 "$@"; }
gateway_up() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$RGW_PORT" 2>/dev/null; }

# Every daemon of this cluster's configuration, also one whose pid file is gone (a stray OSD of an
# earlier cluster makes the new osd.0 exit with 250 at start) or one frozen by SIGSTOP (it would
# hold a TERM until it runs again).
our_daemons() { pgrep -f -- "^(ceph-mon|ceph-osd|radosgw) -c $CONF( |$)" || true; }

stop_all() {
  local pids
  pids=$(our_daemons)
  [ -z "$pids" ] && return 0
  # shellcheck disable=SC2086
  kill -CONT $pids 2>/dev/null || true
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null || true
  for _ in $(seq 1 150); do [ -z "$(our_daemons)" ] && return 0; sleep 0.2; done
  pids=$(our_daemons)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  for _ in $(seq 1 50); do [ -z "$(our_daemons)" ] && return 0; sleep 0.2; done
  log "daemons of $CONF did not stop: $(our_daemons | tr '\n' ' ')"
  return 1
}

write_conf() {
  cat >"$CONF" <<CONF
[global]
fsid = $1
mon host = v1:$MON_ADDR
auth cluster required = none
auth service required = none
auth client required = none
osd objectstore = memstore
memstore device bytes = $MEMSTORE_BYTES
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
osd crush chooseleaf type = 0
run dir = $RUN
pid file = $RUN/\$name.pid
admin socket = $RUN/\$name.asok
log file = $CEPH_DIR/log/\$name.log
osd memory target = 268435456
rgw thread pool size = 32
# RGW frees a deleted object's data through its garbage collector, by default two hours later and
# once an hour: on a store this small, what the tests and the bench delete must go within seconds
# (a full memstore OSD cannot even take the collector's own writes, so it stays full).
rgw gc obj min wait = 0
rgw gc processor period = 5
rgw gc processor max time = 5
[mon.a]
mon data = $CEPH_DIR/mon.a
[osd.0]
osd data = $CEPH_DIR/osd.0
[client.rgw.a]
rgw frontends = beast endpoint=$RGW_BIND:$RGW_PORT
rgw data = $CEPH_DIR/rgw.a
CONF
}

fresh_cluster() {
  log "creating a one-node Ceph cluster in $CEPH_DIR"
  stop_all
  rm -rf "$CEPH_DIR"
  mkdir -p "$RUN" "$CEPH_DIR/log" "$CEPH_DIR/mon.a" "$CEPH_DIR/osd.0" "$CEPH_DIR/rgw.a"
  chmod 700 "$CEPH_DIR"
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$fsid"
  monmaptool --create --add a "v1:$MON_ADDR" --fsid "$fsid" "$CEPH_DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$CEPH_DIR/monmap" >>"$CEPH_DIR/log/start.log" 2>&1
  ceph-mon -c "$CONF" -i a 2>>"$CEPH_DIR/log/start.log"
  ceph_ osd create >/dev/null
  ceph-osd -c "$CONF" -i 0 --mkfs >>"$CEPH_DIR/log/start.log" 2>&1
  ceph-osd -c "$CONF" -i 0 2>>"$CEPH_DIR/log/start.log"
}

osd_up() { alive mon.a && ceph_ osd dump 2>/dev/null | grep -q '^osd.0 up'; }
# A busy monitor can be slow to say the OSD is up: ask for a minute before starting over.
osd_up_soon() {
  local until=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$until" ]; do osd_up && return 0; sleep 1; done
  return 1
}
if [ ! -f "$CONF" ] || [ ! -d "$CEPH_DIR/mon.a" ] || ! alive osd.0 || { alive mon.a && ! osd_up_soon; }; then
  fresh_cluster
elif ! alive mon.a; then
  ceph-mon -c "$CONF" -i a 2>>"$CEPH_DIR/log/start.log"
fi
# A radosgw told to stop closes its port at once but may take a while to exit: start the new one
# when the old one is gone, not before.
started=false
for _ in $(seq 1 450); do
  gateway_up && break
  if ! $started && ! alive client.rgw.a; then
    radosgw -c "$CONF" -n client.rgw.a 2>>"$CEPH_DIR/log/start.log"
    started=true
  fi
  sleep 0.2
done
gateway_up || { log "radosgw did not answer on 127.0.0.1:$RGW_PORT (see $CEPH_DIR/log)"; exit 1; }

admin_key() { timeout 60 radosgw-admin -c "$CONF" user info --uid=hosting-admin 2>/dev/null | python3 -c 'import json,sys; k=json.load(sys.stdin)["keys"][0]; print(k["access_key"], k["secret_key"])' 2>/dev/null; }
if ! keys=$(admin_key); then
  given=()
  if [ -n "${RGW_ADMIN_ACCESS_KEY:-}" ] && [ -n "${RGW_ADMIN_SECRET_KEY:-}" ]; then
    given=(--access-key="$RGW_ADMIN_ACCESS_KEY" --secret-key="$RGW_ADMIN_SECRET_KEY")
  fi
  timeout 60 radosgw-admin -c "$CONF" user create --uid=hosting-admin --display-name="Hosting API (Admin Ops)" \
    --caps="users=*;buckets=*;usage=read;metadata=read" "${given[@]}" >/dev/null
  keys=$(admin_key)
fi
read -r access secret <<<"$keys"
umask 077
cat >"$CEPH_DIR/admin.env" <<ENV
export OBJECT_STORAGE_PROVIDER=rgw
export RGW_ADMIN_URL=http://127.0.0.1:$RGW_PORT
export RGW_ADMIN_ACCESS_KEY=$access
export RGW_ADMIN_SECRET_KEY=$secret
export OBJECT_STORAGE_ENDPOINT=http://127.0.0.1:$RGW_PORT
ENV
cat "$CEPH_DIR/admin.env"
