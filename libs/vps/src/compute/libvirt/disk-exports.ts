import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { FileHandle, open as openFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ComputeProviderError, DiskExport, InstanceRef } from '../compute-provider';
import type { DeploymentMarks } from './deployment-marks';
import { DiskSnapshots } from './disk-snapshots';
import { LibvirtDomains } from './libvirt-domains';
import { StoragePool } from './storage-pool';
import { diesWithParent, diesWithParentPrefix } from '../dies-with-parent';
import { virshEnv } from './virsh';
import { exitOf, VirshFifo } from './virsh-fifo';
import { imageVolume } from './volume-names';
import type { DomainInfo } from './domain-state';
import type { RbdGuestDisks } from '../rbd-disks/rbd-guest-disks';
import type { RbdDiskBackups } from '../rbd-disks/rbd-disk-backups';

/** How often the live copy's backup job is looked at while a backup waits for it. */
const COPY_POLL_MS = 1_000;
/** A copy of a disk in one pool: minutes for tens of GB under TCG. */
const COPY_TIMEOUT_MS = 60 * 60_000;
/**
 * libvirt's stream pushes a download as fast as the hypervisor reads it, and virsh keeps what its
 * output pipe does not take yet: behind a slower upload, a whole disk in virsh's memory. Read in
 * ranges, one virsh each (a call costs some 30 ms), virsh holds at most one range.
 */
const DOWNLOAD_RANGE_BYTES = 64 * 1024 * 1024;
/** Reads of a local copy: a part of the upload is a few of them. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** LIBVIRT_DISK_TRANSFER: `auto` reads a copy on this machine from its file, `stream` always through libvirt. */
export type DiskTransfer = 'auto' | 'stream';

/**
 * Backups of a VPS's root disk, with virsh alone: the disk is copied as a
 * snapshot is (push-mode backup job, filesystems frozen through the agent; a stopped one by
 * vol-create-from) into a temporary standalone volume `img-<backup id>`, streamed out with
 * `virsh vol-download` and removed after. A restore streams it back in (libvirt-restore.ts).
 */
export class DiskExports {
  constructor(
    private readonly domains: LibvirtDomains,
    private readonly pool: StoragePool,
    private readonly snapshots: DiskSnapshots,
    private readonly marks: DeploymentMarks,
    private readonly changeTimeoutMs: number,
    private readonly transfer: DiskTransfer = 'auto',
    /** Where the VPS's disks are on Ceph (rbd-disk-backups.ts); null: in its host's pool. */
    private readonly rbdOf: (instance: InstanceRef) => RbdGuestDisks | null = () => null,
  ) {}

  async export(instance: InstanceRef, exportId: string): Promise<DiskExport> {
    const uri = this.domains.uriOf(instance);
    const [domain] = await Promise.all([
      this.domains.info(instance, this.changeTimeoutMs),
      this.marks.refuseForeign(uri, this.domains.domainOf(instance)),
    ]);
    const rbd = this.rbdOf(instance);
    if (rbd) return this.exportFromCeph(rbd.backups, instance, domain, exportId);
    const task = await this.snapshots.begin(instance, domain, exportId);
    const release = () => this.pool.remove(uri, imageVolume(exportId));
    try {
      // A stopped machine's copy is done when begun: asking after it would only refresh the pool twice.
      for (const until = Date.now() + COPY_TIMEOUT_MS; task.mode === 'live'; await sleep(COPY_POLL_MS)) {
        const status = await this.snapshots.status(instance, task);
        if (status.state === 'failed') throw new ComputeProviderError('backup_failed', status.error.message);
        if (status.state === 'succeeded') break;
        if (Date.now() > until) throw new ComputeProviderError('timeout', 'The copy of the disk did not finish in time.');
      }
      return { stream: await this.read(uri, imageVolume(exportId)), consistency: task.consistency, release };
    } catch (err) {
      // The backup job's file may not be listed by the pool yet: read again first, or the delete takes it for gone.
      await this.pool.refresh(uri).catch(() => undefined);
      await release().catch(() => undefined);
      throw err;
    }
  }

  release(instance: InstanceRef, exportId: string): Promise<void> {
    const rbd = this.rbdOf(instance);
    if (rbd) return rbd.backups.release(instance.serviceId, exportId);
    return this.pool.remove(this.domains.uriOf(instance), imageVolume(exportId));
  }

  private async exportFromCeph(backups: RbdDiskBackups, instance: InstanceRef, domain: DomainInfo, exportId: string): Promise<DiskExport> {
    const consistency = await this.snapshots.frozenWhile(instance, domain, () => backups.capture(instance.serviceId, exportId));
    const release = () => backups.release(instance.serviceId, exportId);
    try {
      const file = await backups.toQcow2(instance.serviceId, exportId);
      return { stream: createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }), consistency, release };
    } catch (err) {
      await release().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The copy's bytes. Where the hypervisor is this machine (a URI without a host) and its file is
   * readable here, from the file, as `qemu-img` would read it; otherwise, or with
   * LIBVIRT_DISK_TRANSFER=stream, through libvirt's stream, which every remote host serves.
   */
  private async read(uri: string, volume: string): Promise<Readable> {
    if (this.transfer === 'auto' && isLocalUri(uri)) {
      const file = await openReadable(await this.pool.volumePath(uri, volume));
      if (file) return file.createReadStream({ highWaterMark: READ_CHUNK_BYTES });
    }
    return this.download(uri, volume);
  }

  /** The volume's bytes through `virsh vol-download`, a range at a time, until a range comes back short. */
  private download(uri: string, volume: string): Readable {
    const args = (offset: number) => [
      'vol-download',
      '--pool',
      this.pool.name,
      '--vol',
      volume,
      '--offset',
      String(offset),
      '--length',
      String(DOWNLOAD_RANGE_BYTES),
    ];
    return Readable.from(
      (async function* () {
        const fifo = await VirshFifo.make();
        try {
          for (let offset = 0; ; offset += DOWNLOAD_RANGE_BYTES) {
            let read = 0;
            for await (const chunk of fifo.output(uri, args(offset))) {
              read += (chunk as Buffer).length;
              yield chunk as Buffer;
            }
            if (read < DOWNLOAD_RANGE_BYTES) return;
          }
        } finally {
          await fifo.remove();
        }
      })(),
      { objectMode: false },
    );
  }
}

/** Streams `open`'s bytes into an existing volume (`virsh vol-upload` from standard input). */
export async function uploadStream(uri: string, pool: string, volume: string, open: () => Promise<Readable>): Promise<void> {
  // Opened first: a backup the store cannot give leaves no virsh waiting for its input.
  const source = await open();
  const upload = spawnPiped(
    `cat | ${diesWithParentPrefix()}virsh "$@"`,
    ['-q', '-c', uri, 'vol-upload', '--pool', pool, '--vol', volume, '--file', '/dev/stdin'],
    ['pipe', 'ignore', 'pipe'],
  );
  const exited = exitOf(upload);
  try {
    await pipeline(source, upload.stdin);
  } catch (err) {
    upload.kill('SIGKILL');
    // Awaited whatever happens (left alone, virsh's failure was an unhandled rejection that ended the
    // process: the soak's hour run). A failure libvirt named (the volume gone) closed virsh's input
    // first: it is the reason, not the broken pipe.
    const failed = await exited.then(
      () => null,
      (virshErr: unknown) => virshErr,
    );
    if (failed instanceof ComputeProviderError && failed.code !== 'hypervisor_error') throw failed;
    throw new ComputeProviderError('restore_failed', `The backup could not be read: ${(err as Error).message}`);
  }
  await exited;
}

/**
 * virsh reading a real pipe: Node's child pipes are socket pairs, and virsh's `--file /dev/stdin`
 * cannot open a socket. `cat` sits between them (VirshFifo says why not a FIFO here); `pipefail`
 * keeps virsh's failure the command's.
 */
function spawnPiped(script: string, args: string[], stdio: ('pipe' | 'ignore')[]) {
  return spawn(...diesWithParent('bash', ['-c', `set -o pipefail; ${script}`, 'virsh', ...args]), {
    env: virshEnv(),
    stdio: stdio as ['pipe', 'pipe', 'pipe'],
  });
}

/** The file opened, or null where this process cannot read it (another machine's path, no permission). */
async function openReadable(path: string): Promise<FileHandle | null> {
  try {
    return await openFile(path, 'r');
  } catch {
    return null;
  }
}

/** A libvirt URI without a host names a daemon on this machine (`qemu:///system`, `qemu+unix:///system?socket=...`). */
export function isLocalUri(uri: string): boolean {
  try {
    return new URL(uri).hostname === '';
  } catch {
    return false;
  }
}
