/** Every volume's image (RBD) or libvirt volume (local) is `vol-<volume id>`; reconciliation looks at no other name. */
export const VOLUME_PREFIX = 'vol-';

export const volumeName = (volumeId: string): string => `${VOLUME_PREFIX}${volumeId}`;

/** The volume id in one of our names; null for any other name. */
export const volumeIdOf = (name: string): string | null => (name.startsWith(VOLUME_PREFIX) ? name.slice(VOLUME_PREFIX.length) : null);

/**
 * The disk's serial, fixed by the volume id so the guest's path never changes: `vol-` and the id's
 * first 16 letters or digits, since QEMU hands virtio-blk guests at most 20 characters of a serial.
 */
export const volumeSerial = (volumeId: string): string => `${VOLUME_PREFIX}${volumeId.replace(/[^A-Za-z0-9]/g, '').slice(0, 16)}`;

/** Where a Linux guest (udev) finds the volume, whatever order its disks came in. */
export const volumeDevicePath = (volumeId: string): string => `/dev/disk/by-id/virtio-${volumeSerial(volumeId)}`;
