/** The parts of RGW's Admin Ops answers the adapter reads. */
export interface RgwUserInfo {
  user_id: string;
  suspended: number;
  max_buckets: number;
  keys: { user: string; access_key: string; secret_key: string }[];
  user_quota?: { enabled: boolean; max_size: number; max_objects: number };
  stats?: { size: number; size_actual: number; num_objects: number };
}

export interface RgwBucketInfo {
  bucket: string;
  creation_time?: string;
  usage?: Record<string, { size: number; num_objects: number } | undefined>;
}
