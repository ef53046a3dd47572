#!/usr/bin/env bash
# Database fault scenarios on a PostgreSQL cluster of their own (port 5439), so stopping and
# starting it harms nothing else. Debian's pg_createcluster/pg_ctlcluster/pg_dropcluster drive it.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=$(ls /etc/postgresql | sort -V | tail -1)
CLUSTER=faults
PORT=5439

cleanup() { pg_dropcluster "$VERSION" "$CLUSTER" --stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
pg_createcluster "$VERSION" "$CLUSTER" --port "$PORT" -- --auth=trust >/dev/null
pg_ctlcluster --skip-systemctl-redirect "$VERSION" "$CLUSTER" start
for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p "$PORT" -q && break; sleep 0.5; done
psql -h 127.0.0.1 -p "$PORT" -U postgres -qc 'CREATE DATABASE faults' >/dev/null

node scripts/build-if-needed.js
FAULTS_PG_VERSION="$VERSION" FAULTS_PG_CLUSTER="$CLUSTER" FAULTS_PG_PORT="$PORT" \
  npx jest --selectProjects faults --runInBand "$@"
