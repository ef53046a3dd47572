#!/usr/bin/env bash
# The rescue system of the real-guest tests (issue 39): a copy of the test image (build-test-image.sh)
# whose root filesystem has a UUID of its own and boots from /dev/vda1, so the rescue system never
# mistakes the VPS's disk (/dev/vdb, a copy of the same image with the same UUID) for its own root.
# Prints the path of the qcow2, cached beside the test image. Needs root (loop devices), qemu-img,
# e2fsprogs.
set -euo pipefail
source_image=${1:?usage: build-rescue-test-image.sh <test image qcow2>}
out="${source_image%.qcow2}-rescue.qcow2"
if [ -s "$out" ] && [ "$out" -nt "$source_image" ]; then echo "$out"; exit 0; fi

exec 9>"$out.lock"
flock 9
if [ -s "$out" ] && [ "$out" -nt "$source_image" ]; then echo "$out"; exit 0; fi
work=$(mktemp -d)
loop=
cleanup() {
  mountpoint -q "$work/root" && umount "$work/root"
  [ -n "$loop" ] && losetup -d "$loop"
  rm -rf "$work"
}
trap cleanup EXIT

qemu-img convert -O raw "$source_image" "$work/disk.raw"
# The partition starts at sector 2048 (build-test-image.sh); no partition devices without udev.
loop=$(losetup -f --show -o $((2048 * 512)) "$work/disk.raw")
e2fsck -fy "$loop" >&2 || [ $? -le 1 ]
tune2fs -U random -L rescue-rootfs "$loop" >&2
mkdir "$work/root"
mount "$loop" "$work/root"
sed -i 's#^UUID=[^ ]* / #/dev/vda1 / #' "$work/root/etc/fstab"
sed -i 's#root=UUID=[^ ]*#root=/dev/vda1#' "$work/root/boot/extlinux/extlinux.conf"
grep -q '^/dev/vda1 / ' "$work/root/etc/fstab"
grep -q 'root=/dev/vda1' "$work/root/boot/extlinux/extlinux.conf"
umount "$work/root"
losetup -d "$loop"
loop=
qemu-img convert -O qcow2 "$work/disk.raw" "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
