/** Every volume of a VPS starts with its domain's name, `svc-<service id>`, so it can be told apart and found again. */
export const rootVolumeOf = (serviceId: string): string => `svc-${serviceId}-root.qcow2`;
export const seedVolumeOf = (serviceId: string): string => `svc-${serviceId}-seed.iso`;

/** The libvirt volume (in LIBVIRT_STORAGE_POOL) holding an image: named by its id, never by its slug. */
export const IMAGE_VOLUME_PREFIX = 'img-';
export const imageVolume = (imageId: string): string => `${IMAGE_VOLUME_PREFIX}${imageId}`;
