#!/usr/bin/env bash
# Builds the Debian 12 cloud image the libvirt tests boot (a real cloud-init reading a NoCloud
# seed), from Debian packages only, and prints the path of the qcow2. The image is cached by this
# script and the versions of the packages it holds, outside the repository, so CI runs on the
# same machine build it once. Needs root (debootstrap, loop devices), debootstrap, extlinux,
# syslinux-common and qemu-utils.
#
#   TEST_IMAGE_CACHE   cache folder (default /var/cache/hosting-test-image)
#   DEBIAN_MIRROR      default http://deb.debian.org/debian
set -euo pipefail

CACHE=${TEST_IMAGE_CACHE:-/var/cache/hosting-test-image}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
SIZE_MIB=2048
PACKAGES="systemd-sysv udev dbus linux-image-cloud-amd64 cloud-init cloud-guest-utils openssh-server ifupdown isc-dhcp-client iproute2 netbase e2fsprogs qemu-guest-agent"

for tool in debootstrap extlinux qemu-img sfdisk losetup; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-test-image: $tool is missing (apt-get install debootstrap extlinux syslinux-common qemu-utils fdisk)" >&2; exit 1; }
done
MBR=/usr/lib/syslinux/mbr/mbr.bin
[ -f "$MBR" ] || { echo "build-test-image: $MBR is missing (apt-get install syslinux-common)" >&2; exit 1; }

versions() { for p in $PACKAGES; do printf '%s=%s\n' "$p" "$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')"; done; }
key=$({ cat "$0"; versions; } | sha256sum | cut -c1-16)
image="$CACHE/debian-12-$key.qcow2"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ -f "$image" ]; then echo "$image"; exit 0; fi

# The filesystem is mounted in a mount namespace of the build's own: a namespace another process
# makes meanwhile (`ip netns exec` of a bridge-mode suite) would copy the mount and keep the
# filesystem alive past our umount; the image would then carry a journal whose replay at the
# guest's first mount wipes extlinux's boot sector, and the guest would boot only once.
if [ -z "${TEST_IMAGE_OWN_MOUNTS:-}" ]; then exec env TEST_IMAGE_OWN_MOUNTS=1 unshare --mount --propagation private bash "$0" "$@"; fi

work=$(mktemp -d /var/tmp/test-image.XXXXXX)
root="$work/root"
loop=""
cleanup() {
  for m in proc sys; do umount "$root/$m" 2>/dev/null || true; done
  umount "$root" 2>/dev/null || true
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

raw="$work/disk.raw"
truncate -s "${SIZE_MIB}M" "$raw"
echo 'start=2048, type=83, bootable' | sfdisk -q "$raw"
# No partition devices without udev: attach the partition alone, by its offset.
loop=$(losetup -f --show -o $((2048 * 512)) --sizelimit $(((SIZE_MIB * 1024 * 1024) - 2048 * 512)) "$raw")
# Features extlinux reads (no 64bit, metadata checksums or orphan file).
mkfs.ext4 -q -L cloudimg-rootfs -O ^64bit,^metadata_csum,^orphan_file "$loop"
uuid=$(blkid -s UUID -o value "$loop")
mkdir -p "$root"
mount "$loop" "$root"

echo "build-test-image: debootstrap $SUITE (minbase)" >&2
debootstrap --variant=minbase --cache-dir=/var/cache/apt/archives "$SUITE" "$root" "$MIRROR" >&2
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
# Nothing installed in the chroot may start a service on the build host.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
echo "build-test-image: installing $PACKAGES" >&2
chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get install -y -q --no-install-recommends $PACKAGES >&2
chroot "$root" apt-get clean
rm -f "$root/usr/sbin/policy-rc.d" "$root"/etc/ssh/ssh_host_* "$root/etc/hostname" "$root/etc/machine-id"
touch "$root/etc/machine-id"

cat >"$root/etc/fstab" <<EOF
UUID=$uuid / ext4 errors=remount-ro 0 1
EOF
cat >"$root/etc/network/interfaces" <<'EOF'
auto lo
iface lo inet loopback
source /etc/network/interfaces.d/*
EOF
# Lighter under TCG than the stock image, where a boot is mostly CPU: the later stages keep only
# the modules a seed of ours uses (hostname, users, keys and host keys run in the init stage), and
# nothing scrubs filesystems or updates packages behind a test's back (e2scrub_reap alone took
# 11-16 s of CPU in a 45 s boot). Each cloud-init stage is a Python process that first imports
# cloud-init and its libraries (requests, jsonschema, jinja2: 14 s of CPU in a loaded TCG guest,
# more than the config stage's own work), so its unit is masked and its two modules run elsewhere:
# three stages a boot instead of four. `set-passwords` runs at the end of the init stage, which
# systemd orders before sshd: it writes `ssh_pwauth` into sshd_config before sshd starts, where the
# config stage restarted a running sshd (a connection then failed with 255); `runcmd` only writes
# the script the final stage runs.
cat >"$root/etc/cloud/cloud.cfg.d/90-test-image.cfg" <<'EOF'
datasource_list: [ NoCloud, ConfigDrive, None ]
locale: C.UTF-8
cloud_init_modules: [ migrator, seed_random, bootcmd, write-files, growpart, resizefs, disk_setup, mounts, set_hostname, update_hostname, update_etc_hosts, ca-certs, rsyslog, users-groups, ssh, set-passwords ]
cloud_config_modules: []
cloud_final_modules: [ runcmd, write-files-deferred, scripts-vendor, scripts-per-once, scripts-per-boot, scripts-per-instance, scripts-user, ssh-authkey-fingerprints, keys-to-console, final-message, power-state-change ]
EOF
# The early units nothing here uses (kernel modules loaded for their own sake, binfmt, debug and
# hugepage mounts, a root fsck a fresh clone never needs) are masked, and the initramfs holds only
# the drivers that find the root disk and the seed (MODULES=most unpacked 15 MB at every boot): each
# of them took a second or more of the one vCPU while cloud-init's first stage started beside them.
# The seed's CD-ROM drivers go in too: cloud-init's generator looks for the `cidata` label before
# udev would load them from the root filesystem, and without it cloud-init does not run at all.
for unit in cloud-config.service e2scrub_reap.service e2scrub_all.timer apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer fstrim.timer \
  modprobe@drm.service modprobe@efi_pstore.service modprobe@fuse.service modprobe@loop.service modprobe@dm_mod.service modprobe@configfs.service \
  kmod-static-nodes.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount sys-kernel-debug.mount sys-kernel-tracing.mount \
  dev-hugepages.mount dev-mqueue.mount systemd-fsckd.socket; do
  ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
printf '%s\n' virtio_pci virtio_blk ata_piix sr_mod isofs >>"$root/etc/initramfs-tools/modules"
chroot "$root" update-initramfs -u -k all >&2

kernel=$(cd "$root/boot" && ls vmlinuz-* | sort -V | tail -1)
initrd="initrd.img-${kernel#vmlinuz-}"
mkdir -p "$root/boot/extlinux"
cat >"$root/boot/extlinux/extlinux.conf" <<EOF
DEFAULT debian
PROMPT 0
TIMEOUT 0
LABEL debian
  LINUX /boot/$kernel
  INITRD /boot/$initrd
  APPEND root=UUID=$uuid ro console=tty0 console=ttyS0,115200 quiet fsck.mode=skip
EOF
extlinux --install "$root/boot/extlinux" >&2
umount "$root/proc" "$root/sys"
# Blocks of deleted files (the packages debootstrap unpacked) would be copied into the qcow2.
fstrim "$root" >&2 || true
umount "$root"
if dumpe2fs -h "$loop" 2>/dev/null | grep -q needs_recovery; then
  echo "build-test-image: the filesystem is still in use after umount (its journal would wipe the boot sector)" >&2
  exit 1
fi
losetup -d "$loop"
loop=""
dd if="$MBR" of="$raw" bs=440 count=1 conv=notrunc status=none

qemu-img convert -f raw -O qcow2 "$raw" "$work/image.qcow2"
mv "$work/image.qcow2" "$image"
versions >"$image.packages"
echo "$image"
