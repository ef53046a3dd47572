export const IMAGE_STATUSES = ['uploading', 'available'] as const;
export type ImageStatus = (typeof IMAGE_STATUSES)[number];
export type ImageFormat = 'qcow2' | 'raw';

/** An image as the rest of the area uses it. */
export interface ImageRow {
  id: string;
  slug: string;
  name: string;
  os_family: string;
  os_version: string;
  min_disk_gb: number;
  format: ImageFormat;
  size_bytes: string;
  status: ImageStatus;
  created_at: string;
}
