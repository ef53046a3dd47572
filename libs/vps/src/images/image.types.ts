import type { ImageFormat } from '../compute/image-store';

export type { ImageFormat };
/** `creating`: a snapshot whose action has not ended; `uploading`: a system image on its way to the hypervisors. */
export const IMAGE_STATUSES = ['creating', 'uploading', 'available', 'deleting'] as const;
export type ImageStatus = (typeof IMAGE_STATUSES)[number];
/** `system`: the operator's, for every account; `snapshot`: one account's, made from a VPS. */
export const IMAGE_TYPES = ['system', 'snapshot'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

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
  type: ImageType;
  account_id: string | null;
  created_from_service_id: string | null;
  created_at: string;
}
