import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CpioFile, kernelGuestFolder, newcArchive, removeDomain, virsh } from './libvirt';

export interface BusyGuest {
  /** Starts a transient domain of this name (gone once destroyed). */
  start(domain: string): Promise<void>;
  /** Destroys the domain (when running) and removes the folder. */
  remove(domain: string): Promise<void>;
}

/** The virtio modules the cloud kernel needs for a disk, in load order. */
const VIRTIO = [
  'virtio/virtio_ring',
  'virtio/virtio',
  'virtio/virtio_pci_legacy_dev',
  'virtio/virtio_pci_modern_dev',
  'virtio/virtio_pci',
  'block/virtio_blk',
];

/**
 * A guest that keeps its CPU and disk a little busy, for the metrics tests: Debian's cloud kernel
 * and an initramfs of busybox-static with the virtio disk modules, whose init reads and writes its
 * scratch qcow2 disk and counts, once a second. Built at test time from the installed packages.
 */
export function buildBusyGuest(): BusyGuest {
  const { dir, modules } = kernelGuestFolder('busy-guest-');
  const names = VIRTIO.map((path) => path.split('/')[1]);
  const init = `#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in ${names.join(' ')}; do insmod /$m.ko; done
while true; do
  dd if=/dev/vda of=/dev/null bs=64k count=32 2>/dev/null
  dd if=/dev/zero of=/dev/vda bs=64k count=8 seek=64 conv=fsync 2>/dev/null
  echo 3 > /proc/sys/vm/drop_caches
  i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done
  sleep 1
done
`;
  const files: CpioFile[] = [
    { name: 'bin', mode: 0o40755 },
    { name: 'bin/busybox', mode: 0o100755, data: readFileSync('/bin/busybox') },
    { name: 'init', mode: 0o100755, data: Buffer.from(init) },
    ...VIRTIO.map((path, i) => ({ name: `${names[i]}.ko`, mode: 0o100644, data: readFileSync(`${modules}/${path}.ko`) })),
  ];
  writeFileSync(join(dir, 'initrd.gz'), gzipSync(newcArchive(files)));
  const disk = join(dir, 'scratch.qcow2');
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', disk, '64M']);
  chmodSync(disk, 0o666);
  const xml = (domain: string) => `<domain type='qemu'>
  <name>${domain}</name>
  <memory unit='MiB'>128</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>${dir}/vmlinuz</kernel>
    <initrd>${dir}/initrd.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='${disk}'/><target dev='vda' bus='virtio'/></disk>
    <serial type='file'><source path='${dir}/console.log' append='on'/></serial>
  </devices>
</domain>
`;
  return {
    async start(domain) {
      writeFileSync(join(dir, 'domain.xml'), xml(domain));
      await virsh('create', join(dir, 'domain.xml'));
    },
    async remove(domain) {
      try {
        await removeDomain(domain);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
