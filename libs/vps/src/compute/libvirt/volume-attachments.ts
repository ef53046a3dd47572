import { setTimeout as sleep } from 'node:timers/promises';
import { ComputeProviderError, InstanceRef } from '../compute-provider';
import type { VolumeSource } from '../volumes/volume-backend';
import { volumeSerial } from '../volumes/volume-names';
import type { DeploymentMarks } from './deployment-marks';
import type { LibvirtDomains } from './libvirt-domains';
import { lookBeforeRetry } from './look-before-retry';
import { diskWithSerial, freeVolumeTarget, VolumeDisk, volumeDiskXml } from './volume-disks';
import { withXmlFile } from './xml-file';

/** A guest releases a hot-unplugged disk when its kernel handles the ACPI eject: seconds, if at all. */
const RELEASE_TIMEOUT_MS = 30_000;
const RELEASE_POLL_MS = 500;

/** Where a volume is on a domain: in its running QEMU (null when it is not running) and in its persistent definition. */
interface Sides {
  name: string;
  running: boolean;
  live: VolumeDisk | null;
  config: VolumeDisk | null;
  xmls: string[];
}

/**
 * Volumes on a VPS's domain: attached live (hot-plug) when it runs and always to its persistent
 * definition, so they are there after a stop and start; detached the same way; grown live with
 * `blockresize` so the running guest sees the new size. Each step looks at both definitions
 * first and does only what is missing, so a retry after a lost answer converges.
 */
export class LibvirtVolumeAttachments {
  constructor(
    private readonly domains: LibvirtDomains,
    private readonly marks: DeploymentMarks,
    private readonly changeTimeoutMs: number,
  ) {}

  async attach(instance: InstanceRef, volumeId: string, source: VolumeSource): Promise<void> {
    const serial = volumeSerial(volumeId);
    await this.refuseForeign(instance);
    const sides = await this.sides(instance, serial);
    const flags = [...(sides.running && !sides.live ? ['--live'] : []), ...(sides.config ? [] : ['--config'])];
    if (!flags.length) return;
    const target = sides.config?.target ?? sides.live?.target ?? freeVolumeTarget(...sides.xmls);
    await lookBeforeRetry(
      () =>
        withXmlFile(volumeDiskXml(source, serial, target), (file) =>
          this.domains.run(instance, ['attach-device', sides.name, file, ...flags]),
        ),
      async () => {
        const now = await this.sides(instance, serial);
        return !!now.config && (!now.running || !!now.live);
      },
    );
  }

  /** Live first: a guest that keeps the disk fails the detach with the volume still attached everywhere. */
  async detach(instance: InstanceRef, volumeId: string): Promise<void> {
    const serial = volumeSerial(volumeId);
    await this.refuseForeign(instance);
    let sides = await this.sides(instance, serial);
    if (sides.live) {
      await this.domains.run(instance, ['detach-disk', sides.name, sides.live.target, '--live']).catch((err: unknown) => {
        // Refused because an earlier request is still being carried out, say: the wait below tells.
        if (err instanceof ComputeProviderError && err.retryable) throw err;
      });
      sides = await this.released(instance, serial);
    }
    if (sides.config) {
      const target = sides.config.target;
      await lookBeforeRetry(
        () => this.domains.run(instance, ['detach-disk', sides.name, target, '--config']),
        async () => !(await this.sides(instance, serial)).config,
      );
    }
  }

  /** Tells the running QEMU (and so the guest) the volume's new size; a machine that is off reads it at its next start. */
  async resize(instance: InstanceRef, volumeId: string, sizeBytes: number): Promise<void> {
    await this.refuseForeign(instance);
    const { name, live } = await this.sides(instance, volumeSerial(volumeId));
    if (!live) return;
    const info = await this.domains.run(instance, ['domblkinfo', name, live.target]);
    const capacity = Number(/^Capacity:\s+(\d+)/m.exec(info)?.[1] ?? NaN);
    if (sizeBytes < capacity)
      throw new ComputeProviderError('invalid_size', `The volume has ${capacity} bytes on the machine; volumes never shrink.`);
    if (sizeBytes === capacity) return;
    await this.domains.run(instance, ['blockresize', name, live.target, `${sizeBytes}B`]);
  }

  private refuseForeign(instance: InstanceRef): Promise<void> {
    return this.marks.refuseForeign(this.domains.uriOf(instance), this.domains.domainOf(instance));
  }

  private async sides(instance: InstanceRef, serial: string): Promise<Sides> {
    const name = this.domains.domainOf(instance);
    const running = (await this.domains.info(instance, this.changeTimeoutMs)).id !== null;
    const config = await this.domains.run(instance, ['dumpxml', '--inactive', name]);
    const live = running ? await this.domains.run(instance, ['dumpxml', name]) : null;
    return {
      name,
      running,
      live: live === null ? null : diskWithSerial(live, serial),
      config: diskWithSerial(config, serial),
      xmls: live === null ? [config] : [config, live],
    };
  }

  private async released(instance: InstanceRef, serial: string): Promise<Sides> {
    const until = Date.now() + RELEASE_TIMEOUT_MS;
    for (;;) {
      const sides = await this.sides(instance, serial);
      if (!sides.live) return sides;
      if (Date.now() > until) {
        throw new ComputeProviderError(
          'detach_refused',
          `The guest did not release the volume within ${RELEASE_TIMEOUT_MS / 1000} s; it stays attached. Stop the VPS and detach again.`,
        );
      }
      await sleep(RELEASE_POLL_MS);
    }
  }
}
