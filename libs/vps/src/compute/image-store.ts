export type ImageFormat = 'qcow2' | 'raw';

/**
 * Where image files live for the hypervisors (a port, like ComputeProvider). The simulator keeps
 * images as rows only; libvirt uploads each into LIBVIRT_STORAGE_POOL on every hypervisor.
 */
export abstract class ImageStore {
  abstract upload(imageId: string, file: string, facts: { format: ImageFormat; sizeBytes: number }): Promise<void>;
  abstract remove(imageId: string): Promise<void>;
}

export class SimulatedImageStore extends ImageStore {
  upload(): Promise<void> {
    return Promise.resolve();
  }

  remove(): Promise<void> {
    return Promise.resolve();
  }
}
