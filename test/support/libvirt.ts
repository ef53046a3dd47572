import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CLEANUP_TIMING, failOnLeftovers, removeDomainWith, removeUnsettled, removeVolumeWith, Virsh, virshOnUri } from './libvirt-cleanup';
import { waitForOrFail } from './wait-for';

export const LIBVIRT_URI = 'qemu:///system';
const VIRSH = '/usr/bin/virsh';

/**
 * The libvirt suite runs where virsh is installed, and always in CI (`CI` set), where a missing
 * libvirt is a failure rather than a skip (`.ci/run` installs it and starts the daemons).
 */
export function libvirtTestsEnabled(): boolean {
  if (existsSync(VIRSH) || process.env.CI) return true;
  process.stderr.write(
    `Skipping libvirt tests: ${VIRSH} is missing (see scripts/ensure-libvirt.sh). In CI (CI set) they run and fail instead.\n`,
  );
  return false;
}

/**
 * The Debian-guest suites whose steps no database changes (vps-libvirt, rescue, snapshots with the
 * root password, backups, drain, evacuation, the bridge suite) run once in CI, in the embedded PGlite
 * pass: its one connection is where a real VPS's long jobs could wait forever, and the PostgreSQL
 * pass runs the same code on the simulator. Three times, they made CI's run too long
 * (docs/testing.md). Outside CI every suite runs on the run's database.
 */
export function guestSuiteInThisPass(): boolean {
  if (!process.env.CI || !process.env.TEST_DATABASE_URL) return libvirtTestsEnabled();
  process.stderr.write('Skipping this Debian-guest suite in the PostgreSQL pass: CI runs it in the PGlite pass.\n');
  return false;
}

/** virsh as an operator runs it (argument array, no shell); a creation it times out on is remembered. */
export const virsh: Virsh = virshOnUri(LIBVIRT_URI, 30_000, VIRSH);

export const domstate = (domain: string): Promise<string> => virsh('domstate', domain);
export const domid = (domain: string): Promise<string> => virsh('domid', domain);

export async function domainNames(): Promise<string[]> {
  return (await virsh('list', '--all', '--name')).split('\n').filter(Boolean);
}

/**
 * Powers off and undefines a domain if it exists, and makes sure it does not: a define that timed
 * out is waited for, libvirtd may still carry it out (libvirt-cleanup.ts). What it cannot remove
 * fails the file after its cleanup.
 */
export const removeDomain = (domain: string): Promise<void> => removeDomainWith(virsh, LIBVIRT_URI, domain);

/** Deletes a volume of `pool` if it exists, and makes sure it does not, as `removeDomain`. */
export const removeVolume = (pool: string, volume: string): Promise<void> => removeVolumeWith(virsh, LIBVIRT_URI, pool, volume);

// After the file's own cleanup: what calls that timed out made and nobody removed, then the verdict.
if (typeof afterAll === 'function') {
  afterAll(async () => {
    await removeUnsettled(virsh, LIBVIRT_URI);
    failOnLeftovers();
  }, 3 * CLEANUP_TIMING.settleMs);
}

export interface TinyGuest {
  /** A LIBVIRT_DOMAIN_TEMPLATE booting the guest; its serial console goes to `consoleLog(name)`. */
  template: string;
  consoleLog(domain: string): string;
  /** Resolves once the guest's init listens for the ACPI power button. */
  ready(domain: string, since?: number, timeoutMs?: number): Promise<void>;
  remove(): void;
}

const READY = 'tiny-guest: waiting for the power button';

/**
 * A folder of its own for a busybox test guest, holding Debian's installed cloud kernel as
 * `vmlinuz`, and where that kernel's driver modules are.
 */
export function kernelGuestFolder(prefix: string): { dir: string; modules: string } {
  const kernel = readdirSync('/boot')
    .filter((name) => /^vmlinuz-.*-cloud-amd64$/.test(name))
    .sort()
    .pop();
  if (!kernel) throw new Error('No cloud kernel under /boot: apt-get install linux-image-cloud-amd64');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // QEMU runs as another user: it must reach the kernel and initrd, and write the console log.
  chmodSync(dir, 0o777);
  copyFileSync(`/boot/${kernel}`, join(dir, 'vmlinuz'));
  return { dir, modules: `/lib/modules/${kernel.slice('vmlinuz-'.length)}/kernel/drivers` };
}

/** virtio-blk and what it stands on, in the order they load (modules of Debian's cloud kernel). */
export const VIRTIO_MODULES = ['virtio_ring', 'virtio', 'virtio_pci_legacy_dev', 'virtio_pci_modern_dev', 'virtio_pci', 'virtio_blk'];

/** The VIRTIO_MODULES as initramfs files `/<name>.ko`, from the kernel's `drivers` folder. */
export function virtioModuleFiles(modules: string): CpioFile[] {
  return VIRTIO_MODULES.map((module) => ({
    name: `${module}.ko`,
    mode: 0o100644,
    data: readFileSync(join(modules, module === 'virtio_blk' ? 'block' : 'virtio', `${module}.ko`)),
  }));
}

/**
 * With `diskSystem`: when the root disk's first partition holds a system (the Debian test image),
 * the guest boots it (ext4 is built in); an empty disk keeps the busybox guest. The image's own
 * modules may be of another kernel version than the host's, so the guest agent's virtio-serial
 * driver is loaded here, before the switch.
 */
const DISK_SYSTEM = `for module in ${VIRTIO_MODULES.join(' ')} virtio_console; do insmod /$module.ko; done
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -b /dev/vda ] && break; usleep 100000; done
mkdir -p /system
if [ -b /dev/vda1 ] && mount -t ext4 /dev/vda1 /system 2>/dev/null; then
  # Debian's /sbin/init is an absolute symlink: it resolves only inside the new root.
  if [ -L /system/sbin/init ] || [ -e /system/sbin/init ]; then
    echo "tiny-guest: booting the system on its disk"
    umount /proc /sys /dev
    exec switch_root /system /sbin/init
  fi
  umount /system
fi
`;

/**
 * A Linux guest that obeys ACPI: Debian's cloud kernel and an initramfs of busybox-static plus the
 * kernel's evdev and button modules, whose init powers off when the power button is pressed.
 * Built from the installed packages at test time (about a second). With `disks`, the domain has
 * the VPS's root and seed disks too (the kernel boots from its initramfs and leaves them alone),
 * so its disk can be snapshotted and backed up. With `diskSystem` too, a disk made from the Debian
 * test image boots Debian (under the same template, with the guest agent's channel, its socket in
 * the guest's folder: a session libvirtd's own path is too long for a UNIX socket), so one
 * deployment runs both kinds of guest.
 */
export function buildTinyGuest(options: { disks?: boolean; diskSystem?: boolean } = {}): TinyGuest {
  const { dir, modules } = kernelGuestFolder('tiny-guest-');
  const init = `#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
${options.diskSystem ? DISK_SYSTEM : ''}insmod /evdev.ko
insmod /button.ko
for event in /sys/class/input/event*; do
  if grep -q "Power Button" "$event/device/name"; then
    (dd if=/dev/input/$(basename "$event") of=/dev/null bs=24 count=1 2>/dev/null; echo "tiny-guest: powering off"; poweroff -f) &
  fi
done
echo "${READY}"
while true; do sleep 3600; done
`;
  const files: CpioFile[] = [
    { name: 'bin', mode: 0o40755 },
    { name: 'bin/busybox', mode: 0o100755, data: readFileSync('/bin/busybox') },
    { name: 'init', mode: 0o100755, data: Buffer.from(init) },
    { name: 'evdev.ko', mode: 0o100644, data: readFileSync(`${modules}/input/evdev.ko`) },
    { name: 'button.ko', mode: 0o100644, data: readFileSync(`${modules}/acpi/button.ko`) },
    ...(options.diskSystem
      ? [
          ...virtioModuleFiles(modules),
          { name: 'virtio_console.ko', mode: 0o100644, data: readFileSync(`${modules}/char/virtio_console.ko`) },
        ]
      : []),
  ];
  writeFileSync(join(dir, 'initrd.gz'), gzipSync(newcArchive(files)));
  const consoleLog = (domain: string) => join(dir, `${domain}.log`);
  const template = `<domain type='qemu'>
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
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>${options.disks ? '\n    {{disks}}' : ''}
    <serial type='file'><source path='${dir}/{{name}}.log' append='on'/></serial>
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
    <video><model type='vga'/></video>${options.diskSystem ? `\n    <channel type='unix'><source mode='bind' path='${dir}/{{name}}.agent'/><target type='virtio' name='org.qemu.guest_agent.0'/></channel>` : ''}
  </devices>
</domain>
`;
  const templateFile = join(dir, 'tiny-guest.xml');
  writeFileSync(templateFile, template);
  return {
    template: templateFile,
    consoleLog,
    async ready(domain, since = 0, timeoutMs = 60_000) {
      await waitForOrFail(
        async () => (existsSync(consoleLog(domain)) ? readFileSync(consoleLog(domain), 'utf8') : ''),
        (log) => log.split(READY).length - 1 > since,
        timeoutMs,
        (log) => `${domain} did not boot within ${timeoutMs} ms; console:\n${log.slice(-2000)}`,
      );
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface CpioFile {
  name: string;
  mode: number;
  data?: Buffer;
}

/** The "newc" cpio format the kernel unpacks as its initramfs. */
export function newcArchive(files: CpioFile[]): Buffer {
  const parts: Buffer[] = [];
  const pad = (length: number) => Buffer.alloc((4 - (length % 4)) % 4);
  const entry = (name: string, mode: number, data: Buffer, ino: number) => {
    const fields = [ino, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length + 1, 0];
    const header = `070701${fields.map((n) => n.toString(16).padStart(8, '0')).join('')}`;
    const head = Buffer.concat([Buffer.from(header), Buffer.from(`${name}\0`)]);
    parts.push(head, pad(head.length), data, pad(data.length));
  };
  files.forEach((file, i) => entry(file.name, file.mode, file.data ?? Buffer.alloc(0), i + 1));
  entry('TRAILER!!!', 0, Buffer.alloc(0), 0);
  return Buffer.concat(parts);
}
