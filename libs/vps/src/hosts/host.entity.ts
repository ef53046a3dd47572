/** What a host is in: only `enabled` hosts take new VPSes; `unreachable` is set by the health check. */
export const HOST_STATES = ['enabled', 'disabled', 'maintenance', 'unreachable'] as const;
export type HostState = (typeof HOST_STATES)[number];

/** What the operator sets by hand (`unreachable` is the health check's, and it lifts it). */
export const OPERATOR_HOST_STATES = ['enabled', 'disabled', 'maintenance'] as const;

/** Resources of a VPS, as placement counts them against a host. */
export interface HostNeed {
  vcpus: number;
  memoryMb: number;
  diskGb: number;
}

/** A host's capacity and what is taken of it. */
export interface HostCapacity {
  id: string;
  name: string;
  vcpus: number;
  cpuOvercommit: number;
  memoryMb: number;
  diskGb: number;
  usedVcpus: number;
  usedMemoryMb: number;
  usedDiskGb: number;
}

/** A row of `hosts`, with its VPS count. */
export interface HostRow extends HostCapacity {
  region: string;
  uri: string;
  vncListen: string | null;
  state: HostState;
  vpsCount: number;
  lastSeenAt: Date | null;
}

/** Where a VPS's machine lives, as the compute port is handed it in the InstanceRef. */
export interface HostTarget {
  id: string;
  name: string;
  uri: string;
  vncListen: string | null;
  state: HostState;
}

export interface NewHost {
  name: string;
  region: string;
  uri: string;
  vcpus: number;
  memoryMb: number;
  diskGb: number;
  cpuOvercommit: number;
  vncListen: string | null;
}
