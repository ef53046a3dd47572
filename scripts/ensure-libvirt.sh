#!/usr/bin/env bash
# Starts virtlogd and libvirtd when they are not running (machines without systemd, such as CI
# containers), then waits until `virsh -c qemu:///system` answers. virtlogd must come first:
# without it `virsh start` fails to connect to the virtlogd socket.
set -euo pipefail

command -v virsh >/dev/null 2>&1 || { echo "virsh is missing: apt-get install libvirt-daemon-system libvirt-clients qemu-system-x86" >&2; exit 1; }

# libvirtd re-probes QEMU on every call (30-50 s per define) once /dev/kvm has lost its group.
if [ -e /dev/kvm ] && getent group kvm >/dev/null 2>&1 && [ "$(stat -c %G /dev/kvm)" != kvm ]; then chgrp kvm /dev/kvm || true; fi

if ! pgrep -x virtlogd >/dev/null 2>&1; then virtlogd -d; fi
if ! pgrep -x libvirtd >/dev/null 2>&1; then libvirtd -d; fi

for _ in $(seq 1 50); do
  if virsh -c qemu:///system version >/dev/null 2>&1; then exit 0; fi
  sleep 0.2
done
echo "libvirtd did not answer on qemu:///system" >&2
exit 1
