import type { PowerState } from '../../vps.types';

/** `virsh dominfo` / `virsh list` state names. */
const POWER_STATES: Record<string, PowerState> = {
  running: 'running',
  idle: 'running',
  blocked: 'running',
  'in shutdown': 'stopping',
  dying: 'stopping',
  'shut off': 'stopped',
  crashed: 'stopped',
  // A paused or suspended guest serves nobody; start resumes it.
  paused: 'stopped',
  pmsuspended: 'stopped',
};

export const powerStateOf = (virshState: string): PowerState | null => POWER_STATES[virshState.trim().toLowerCase()] ?? null;

export interface DomainInfo {
  name: string;
  uuid: string;
  /** The running QEMU process's id; null when the domain is off. A restart gives a new one. */
  id: string | null;
  state: string;
  vcpus: number;
  memoryKiB: number;
}

export function parseDominfo(output: string): DomainInfo {
  const field = (label: string) => new RegExp(`^${label}:\\s*(.*)$`, 'mi').exec(output)?.[1].trim() ?? '';
  const id = field('Id');
  return {
    name: field('Name'),
    uuid: field('UUID'),
    id: id && id !== '-' ? id : null,
    state: field('State'),
    vcpus: Number(field('CPU\\(s\\)')) || 1,
    memoryKiB: Number(/^(\d+)/.exec(field('Max memory'))?.[1] ?? 0),
  };
}

/** `virsh list --all` (with -q): domain name -> power state. Names with spaces are not ours and are skipped. */
export function parseDomainList(output: string): Map<string, PowerState> {
  const states = new Map<string, PowerState>();
  for (const line of output.split('\n')) {
    const match = /^\s*(\S+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    const state = match && powerStateOf(match[3]);
    if (match && state) states.set(match[2], state);
  }
  return states;
}
