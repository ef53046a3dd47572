/** A VPS's disks on Ceph: raw RBD images named as its libvirt volumes, without the file format's suffix. */
export const rbdRootOf = (serviceId: string): string => `svc-${serviceId}-root`;
export const rbdSeedOf = (serviceId: string): string => `svc-${serviceId}-seed`;
/** The rescue system's disk (a clone of the rescue image) and seed while the VPS is in rescue mode. */
export const rbdRescueOf = (serviceId: string): string => `svc-${serviceId}-rescue`;
export const rbdRescueSeedOf = (serviceId: string): string => `svc-${serviceId}-rescue-seed`;

/** The RBD image a region's VPS disks are cloned from (its `@base` snapshot): named by the image's id, never its slug. */
export const rbdImageOf = (imageId: string): string => `img-${imageId}`;
