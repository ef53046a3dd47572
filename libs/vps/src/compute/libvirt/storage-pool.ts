import { ComputeProviderError } from '../compute-provider';
import { lookBeforeRetry } from './look-before-retry';
import { POOL_BUSY_CODE, Virsh, VOLUME_EXISTS_CODE } from './virsh';
import { withXmlFile } from './xml-file';

/** An upload moves a whole image (hundreds of MB, maybe to a remote host). */
const UPLOAD_TIMEOUT_MS = 60 * 60_000;

/** A volume looked up or deleted may already be gone: an answer, not a failure to log. */
const MAY_BE_MISSING = ['not_found'];

const isNotFound = (err: unknown) => err instanceof ComputeProviderError && err.code === 'not_found';

/**
 * The volumes of LIBVIRT_STORAGE_POOL on one hypervisor, through virsh, so it works against remote
 * hosts too. Each step looks before it acts: a pool that exists is used, a volume that is already
 * gone is fine to delete.
 */
export class StoragePool {
  private readonly ready = new Set<string>();

  constructor(
    private readonly virsh: Virsh,
    readonly name: string,
    private readonly changeTimeoutMs: number,
    private readonly busyPollMs = 2_000,
  ) {}

  /**
   * Makes the pool a started directory pool when it is missing or stopped (once per URI and process).
   * Returns the directory of a pool it defined (autostarted: it outlives us), null when the pool was there.
   */
  async ensure(uri: string): Promise<string | null> {
    if (this.ready.has(uri)) return null;
    let info: string;
    let made: string | null = null;
    try {
      info = await this.run(uri, ['pool-info', this.name], this.changeTimeoutMs, MAY_BE_MISSING);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      made = this.name === 'default' ? '/var/lib/libvirt/images' : `/var/lib/libvirt/images/${this.name}`;
      await this.run(uri, ['pool-define-as', '--name', this.name, '--type', 'dir', '--target', made]);
      await this.run(uri, ['pool-build', this.name]);
      await this.run(uri, ['pool-autostart', this.name]);
      info = '';
    }
    if (!/^State:\s+running$/m.test(info)) await this.run(uri, ['pool-start', this.name]);
    this.ready.add(uri);
    return made;
  }

  async exists(uri: string, volume: string): Promise<boolean> {
    try {
      await this.run(uri, ['vol-info', '--pool', this.name, '--vol', volume], this.changeTimeoutMs, MAY_BE_MISSING);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** A qcow2 disk of `gb` GiB whose backing file is `backing` (grown, never shrunk, by the guest's first boot). */
  async createOverlay(uri: string, volume: string, backing: string, backingFormat: string, gb: number): Promise<void> {
    await this.ensure(uri);
    await this.createOver(uri, volume, () =>
      this.run(
        uri,
        [
          'vol-create-as',
          '--pool',
          this.name,
          '--name',
          volume,
          '--capacity',
          `${gb}G`,
          '--format',
          'qcow2',
          '--backing-vol',
          backing,
          '--backing-vol-format',
          backingFormat,
        ],
        this.changeTimeoutMs,
        [VOLUME_EXISTS_CODE],
      ),
    );
  }

  /** A volume holding exactly the file's bytes. */
  async upload(uri: string, volume: string, file: string, format: string, sizeBytes: number): Promise<void> {
    await this.ensure(uri);
    // A half-written volume is worth nothing: each try starts again from an empty one.
    await lookBeforeRetry(
      async () => {
        await this.remove(uri, volume);
        await this.createOver(uri, volume, () =>
          this.run(
            uri,
            ['vol-create-as', '--pool', this.name, '--name', volume, '--capacity', `${sizeBytes}b`, '--format', format],
            this.changeTimeoutMs,
            [VOLUME_EXISTS_CODE],
          ),
        );
        await this.run(uri, ['vol-upload', '--pool', this.name, '--vol', volume, '--file', file], UPLOAD_TIMEOUT_MS);
      },
      () => Promise.resolve(false),
    );
  }

  /**
   * The pool's list read again from its directory: a file libvirt wrote outside the pool's own calls
   * (a backup job's target) is a volume only after this, and `remove` takes it for gone until then.
   */
  async refresh(uri: string, waitWhileBusyMs = this.changeTimeoutMs): Promise<void> {
    // Refused while another volume of the pool is being copied (the soak's hour: snapshots failed
    // beside a rebuild's copy): asked again until the copy ends, up to the change timeout.
    const until = Date.now() + waitWhileBusyMs;
    for (;;) {
      try {
        return void (await this.run(uri, ['pool-refresh', this.name], this.changeTimeoutMs, [POOL_BUSY_CODE]));
      } catch (err) {
        if (!(err instanceof ComputeProviderError && err.code === POOL_BUSY_CODE) || Date.now() > until) throw err;
        await new Promise((resolve) => setTimeout(resolve, this.busyPollMs));
      }
    }
  }

  /** The names of the pool's volumes as it lists them now (`refresh` first for files written beside it); none where the pool is not made yet. */
  async volumes(uri: string, timeoutMs = this.changeTimeoutMs): Promise<string[]> {
    const listing = await this.run(uri, ['vol-list', '--pool', this.name], timeoutMs, MAY_BE_MISSING).catch((err: unknown) =>
      isNotFound(err) ? '' : Promise.reject(err),
    );
    // virsh runs with -q: no header, the first column is the name.
    return listing
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter(Boolean);
  }

  /** Capacity and allocation (bytes on disk) of a volume, as the pool knows it now (refreshed first). */
  async sizes(uri: string, volume: string): Promise<{ capacity: number; allocation: number }> {
    await this.refresh(uri);
    const info = await this.run(uri, ['vol-info', '--pool', this.name, '--vol', volume, '--bytes']);
    const bytes = (label: string) => Number(new RegExp(`^${label}:\\s+(\\d+) bytes`, 'm').exec(info)?.[1] ?? NaN);
    return { capacity: bytes('Capacity'), allocation: bytes('Allocation') };
  }

  /** The volume's file on that hypervisor. */
  async volumePath(uri: string, volume: string): Promise<string> {
    return (await this.run(uri, ['vol-path', '--pool', this.name, volume])).trim();
  }

  /** Where the pool keeps its files on that hypervisor (a file written there becomes a volume on refresh). */
  async path(uri: string): Promise<string> {
    await this.ensure(uri);
    const xml = await this.run(uri, ['pool-dumpxml', this.name]);
    const path = /<target>\s*<path>([^<]+)<\/path>/.exec(xml)?.[1];
    if (!path) throw new ComputeProviderError('hypervisor_error', `The storage pool ${this.name} has no target path.`);
    return path;
  }

  /**
   * A standalone qcow2 copy of `from` (its backing chain read through, none kept): libvirt's own
   * copy on the hypervisor, so the API host needs no access to the disk. The copy's capacity is the
   * source's (libvirt raises a missing one to it), so the source is not looked up first; a volume
   * an earlier try left under the name is removed and the copy made again.
   */
  async copyFlat(uri: string, from: string, to: string): Promise<void> {
    const xml = `<volume><name>${to}</name><target><format type='qcow2'/></target></volume>`;
    await this.createOver(uri, to, () =>
      withXmlFile(xml, (file) =>
        this.run(uri, ['vol-create-from', this.name, file, from, '--inputpool', this.name], UPLOAD_TIMEOUT_MS, [VOLUME_EXISTS_CODE]),
      ),
    );
  }

  /**
   * Makes a volume over one the name already has: listed (an earlier try's), or only a file in the
   * pool's directory that the pool has not listed (libvirt refuses both; the soak's hour met one
   * right after a rebuild removed the root disk), so the list is read again before the removal.
   */
  private async createOver(uri: string, volume: string, create: () => Promise<unknown>): Promise<void> {
    try {
      await create();
    } catch (err) {
      if (!(err instanceof ComputeProviderError && err.code === VOLUME_EXISTS_CODE)) throw err;
      await this.refresh(uri);
      await this.remove(uri, volume);
      await create();
    }
  }

  /** Nothing to remove where the pool itself is missing: that answer too is an expected not_found. */
  async remove(uri: string, volume: string): Promise<void> {
    await lookBeforeRetry(
      () =>
        this.run(uri, ['vol-delete', '--pool', this.name, '--vol', volume], this.changeTimeoutMs, MAY_BE_MISSING).catch((err: unknown) =>
          isNotFound(err) ? '' : Promise.reject(err),
        ),
      async () => !(await this.exists(uri, volume)),
    );
  }

  private run(uri: string, args: string[], timeoutMs = this.changeTimeoutMs, expected: readonly string[] = []): Promise<string> {
    return this.virsh.run(uri, args, { timeoutMs, expected });
  }
}
