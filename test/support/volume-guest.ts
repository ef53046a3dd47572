import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CpioFile, kernelGuestFolder, newcArchive, VIRTIO_MODULES, virtioModuleFiles } from './libvirt';
import { waitForOrFail } from './wait-for';

const BOOTED = 'volume-guest: booted';

/** A guest's block device as its kernel has it: the serial QEMU gave it and its size in 512-byte sectors. */
export interface GuestDisk {
  name: string;
  serial: string;
  sectors: number;
}

export interface VolumeGuest {
  /** A LIBVIRT_DOMAIN_TEMPLATE of a guest without disks of its own; its serial console goes to a file. */
  template: string;
  /** How many times the guest has booted (its console log is kept over restarts). */
  boots(domain: string): number;
  /** The guest's disks, as its init last wrote them in its latest boot; null before it looked. */
  disks(domain: string): GuestDisk[] | null;
  /** Resolves once the guest, booted more than `afterBoots` times, has disks as `wanted` says (seconds after a hot-plug or resize). */
  until(domain: string, wanted: (disks: GuestDisk[]) => boolean, what: string, afterBoots?: number): Promise<GuestDisk[]>;
  remove(): void;
}

/**
 * The tiny test guest (Debian's cloud kernel, busybox), with virtio-blk loaded and an init that
 * writes a line to the console whenever its block devices change: which there are, their serial
 * (sysfs; no udev for /dev/disk/by-id) and size. It sees hot-plug, resize and unplug as a guest
 * system would, in a few seconds of boot.
 */
export function buildVolumeGuest(): VolumeGuest {
  const { dir, modules } = kernelGuestFolder('volume-guest-');
  const init = `#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "${BOOTED}"
for module in ${VIRTIO_MODULES.join(' ')}; do insmod /$module.ko; done
last=none
while true; do
  now=""
  for disk in /sys/block/vd*; do
    [ -e "$disk" ] && now="$now $(basename "$disk"):$(cat "$disk/serial" 2>/dev/null):$(cat "$disk/size")"
  done
  [ "$now" != "$last" ] && echo "volume-guest disks:$now" && last="$now"
  sleep 1
done
`;
  const files: CpioFile[] = [
    { name: 'bin', mode: 0o40755 },
    { name: 'bin/busybox', mode: 0o100755, data: readFileSync('/bin/busybox') },
    { name: 'init', mode: 0o100755, data: Buffer.from(init) },
    ...virtioModuleFiles(modules),
  ];
  writeFileSync(join(dir, 'initrd.gz'), gzipSync(newcArchive(files)));
  const template = join(dir, 'volume-guest.xml');
  writeFileSync(
    template,
    `<domain type='qemu'>
  <name>{{name}}</name>
  <memory unit='MiB'>{{memoryMb}}</memory>
  <vcpu>{{vcpus}}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>${dir}/vmlinuz</kernel>
    <initrd>${dir}/initrd.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <serial type='file'><source path='${dir}/{{name}}.log' append='on'/></serial>
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
  </devices>
</domain>
`,
  );
  const log = (domain: string) => (existsSync(join(dir, `${domain}.log`)) ? readFileSync(join(dir, `${domain}.log`), 'utf8') : '');
  const boots = (domain: string) => log(domain).split(BOOTED).length - 1;
  const disks = (domain: string): GuestDisk[] | null => {
    const lines = log(domain)
      .split(BOOTED)
      .pop()!
      .match(/^volume-guest disks:.*$/gm);
    if (!lines) return null;
    return lines[lines.length - 1]
      .slice('volume-guest disks:'.length)
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((entry) => {
        const [name, serial, sectors] = entry.split(':');
        return { name, serial, sectors: Number(sectors) };
      });
  };
  return {
    template,
    boots,
    disks,
    until: async (domain, wanted, what, afterBoots = 0, timeoutMs = 60_000) =>
      (await waitForOrFail(
        async () => (boots(domain) > afterBoots ? disks(domain) : null),
        (seen) => seen !== null && wanted(seen),
        timeoutMs,
        (seen) => `${domain}: ${what} not seen within ${timeoutMs} ms; the guest's disks: ${JSON.stringify(seen)}`,
      ))!,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
