export type ImageFormat = 'qcow2' | 'raw';

/** A storage pool an upload had to make on a hypervisor: it stays, and starts with libvirtd, so the operator is told. */
export interface PoolMade {
  hypervisor: string;
  pool: string;
  /** The directory the pool keeps its volumes in. */
  path: string;
}

/**
 * Where image files live for the hypervisors (a port, like ComputeProvider). The simulator keeps
 * images as rows only; libvirt uploads each into LIBVIRT_STORAGE_POOL on every hypervisor.
 */
export abstract class ImageStore {
  /** Returns the storage pools it had to make first (none where they existed). */
  abstract upload(imageId: string, file: string, facts: { format: ImageFormat; sizeBytes: number }): Promise<PoolMade[]>;
  abstract remove(imageId: string): Promise<void>;
  /**
   * The ids of the images with a volume on some hypervisor now, files written outside the pool's
   * own calls included (a failed snapshot's); a hypervisor that does not answer is left out. Every
   * id returned is a UUID.
   */
  abstract present(): Promise<string[]>;
}

export class SimulatedImageStore extends ImageStore {
  upload(): Promise<PoolMade[]> {
    return Promise.resolve([]);
  }

  remove(): Promise<void> {
    return Promise.resolve();
  }

  present(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
