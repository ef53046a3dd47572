#!/usr/bin/env bash
# Makes a rescue image from a cloud image: a copy whose system finds its root and the filesystems of
# its fstab by device (/dev/vdaN), never by UUID, PARTUUID or LABEL. In rescue mode the VPS's own
# disk is attached beside the rescue system as /dev/vdb, and a VPS built from the same image carries
# the same identifiers: found by them, the rescue system could boot or mount the customer's disk as
# its own. Rewritten on every partition that has them: /etc/fstab, GRUB's boot/grub/grub.cfg and
# /etc/default/grub, extlinux's extlinux.conf. The partitions keep their identifiers, so a boot
# loader that finds its own files by them (GRUB's search, which looks at the boot disk first) still does.
#
#   make-rescue-image.sh <cloud image, qcow2 or raw> <rescue image to write, qcow2>
#
# Needs root (loop devices), qemu-img, sfdisk and blkid (util-linux), GNU sed.
set -euo pipefail
source_image=${1:?usage: make-rescue-image.sh <cloud image> <rescue image qcow2>}
out=${2:?usage: make-rescue-image.sh <cloud image> <rescue image qcow2>}

work=$(mktemp -d)
loop=
cleanup() {
  mountpoint -q "$work/mnt" && umount "$work/mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/mnt"

qemu-img convert -O raw "$source_image" "$work/disk.raw"
dump=$(sfdisk -d "$work/disk.raw")
# MBR partitions' PARTUUID is the disk id and the partition's number: 1a2b3c4d-01.
label_id=$(awk '/^label-id:/ {print tolower($2)}' <<<"$dump" | sed 's/^0x//')
label=$(awk '/^label:/ {print $2}' <<<"$dump")

# One line a partition: number start size partuuid.
partitions=$(grep -E '^[^ ]+[0-9]+ : ' <<<"$dump" | while read -r line; do
  number=$(sed -E 's/^[^ ]*[^0-9]([0-9]+) : .*/\1/' <<<"$line")
  start=$(grep -oE 'start= *[0-9]+' <<<"$line" | grep -oE '[0-9]+')
  size=$(grep -oE 'size= *[0-9]+' <<<"$line" | grep -oE '[0-9]+')
  if [ "$label" = gpt ]; then partuuid=$(grep -oE 'uuid=[0-9A-Fa-f-]+' <<<"$line" | cut -d= -f2 | tr 'A-F' 'a-f'); else partuuid="$label_id-$(printf '%02x' "$number")"; fi
  echo "$number $start $size $partuuid"
done)
[ -n "$partitions" ] || { echo "make-rescue-image: $source_image has no partition table" >&2; exit 1; }

# sed expressions: each filesystem's identifiers, in every spelling, become its device.
rewrite=()
while read -r number start size partuuid; do
  loop=$(losetup -f --show -o $((start * 512)) --sizelimit $((size * 512)) "$work/disk.raw")
  # -p: blkid's cache would answer for an earlier partition on the same loop device.
  uuid=$(blkid -p -s UUID -o value "$loop" || true)
  fslabel=$(blkid -p -s LABEL -o value "$loop" || true)
  losetup -d "$loop"
  loop=
  device="/dev/vda$number"
  rewrite+=(-e "s#(PARTUUID=\"?|/dev/disk/by-partuuid/)$partuuid\"?#$device#Ig")
  [ -n "$uuid" ] && rewrite+=(-e "s#(^|[^A-Za-z])(UUID=\"?|/dev/disk/by-uuid/)$uuid\"?#\\1$device#Ig")
  [ -n "$fslabel" ] && rewrite+=(-e "s#(^|[^A-Za-z])(LABEL=\"?|/dev/disk/by-label/)$fslabel\"?([[:space:]]|\$)#\\1$device\\3#g")
done <<<"$partitions"

rewritten=0
while read -r number start size _; do
  loop=$(losetup -f --show -o $((start * 512)) --sizelimit $((size * 512)) "$work/disk.raw")
  if mount "$loop" "$work/mnt" 2>/dev/null; then
    for file in etc/fstab boot/grub/grub.cfg grub/grub.cfg etc/default/grub boot/extlinux/extlinux.conf extlinux/extlinux.conf boot/extlinux.conf; do
      [ -f "$work/mnt/$file" ] || continue
      sed -E -i "${rewrite[@]}" "$work/mnt/$file"
      if grep -qE '(^|[[:space:]])root=(UUID|PARTUUID|LABEL)=' "$work/mnt/$file"; then
        echo "make-rescue-image: partition $number's $file still names its root by an identifier:" >&2
        grep -E 'root=(UUID|PARTUUID|LABEL)=' "$work/mnt/$file" >&2
        exit 1
      fi
      echo "make-rescue-image: partition $number: $file" >&2
      rewritten=$((rewritten + 1))
    done
    if [ -f "$work/mnt/etc/fstab" ] && ! grep -qE '^/dev/vda[0-9]+[[:space:]]+/[[:space:]]' "$work/mnt/etc/fstab"; then
      echo "make-rescue-image: partition $number's /etc/fstab mounts / by something not rewritten:" >&2
      grep -E '[[:space:]]/[[:space:]]' "$work/mnt/etc/fstab" >&2 || true
      exit 1
    fi
    umount "$work/mnt"
  fi
  losetup -d "$loop"
  loop=
done <<<"$partitions"
[ "$rewritten" -gt 0 ] || { echo "make-rescue-image: found no fstab or boot loader configuration to rewrite" >&2; exit 1; }

qemu-img convert -O qcow2 "$work/disk.raw" "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
