import type { ImageFormat } from './image-store';

/**
 * What `host:add` asks of the hypervisor behind a new host: that it answers, that the
 * storage pool is there, and that every image is in it. A port like ComputeProvider: the libvirt
 * adapter does it with virsh; the simulator's hosts are rows only.
 */
export abstract class HostSetup {
  /** Throws a ComputeProviderError when the URI does not answer. */
  abstract check(uri: string): Promise<void>;
  /** Makes the pool and copies the image volumes `img-<id>` missing there from a hypervisor that has them. Returns how many were copied. */
  abstract prepare(uri: string, images: { id: string; format: ImageFormat }[]): Promise<number>;
  /** Whether the hypervisor answers now (the health check; never throws). */
  abstract answers(uri: string): Promise<boolean>;
}

export class SimulatedHostSetup extends HostSetup {
  check(): Promise<void> {
    return Promise.resolve();
  }

  prepare(): Promise<number> {
    return Promise.resolve(0);
  }

  answers(): Promise<boolean> {
    return Promise.resolve(true);
  }
}
