/** What the database records: `provisioning`: its machine is being made; `error`: provisioning failed for good, or the machine vanished. */
export const POWER_STATES = ['running', 'stopped', 'starting', 'stopping', 'provisioning', 'error'] as const;
export type PowerState = (typeof POWER_STATES)[number];

/** A VPS's power state as customers see it (DESIGN.md's four). */
export const PUBLIC_POWER_STATES = ['running', 'stopped', 'starting', 'stopping'] as const;
export type PublicPowerState = (typeof PUBLIC_POWER_STATES)[number];

/** What customers see: a machine being made is `starting`, one that could not be made or vanished is `stopped`. */
export function publicPowerState(state: PowerState): PublicPowerState {
  if (state === 'provisioning') return 'starting';
  return state === 'error' ? 'stopped' : state;
}

/** `restore` puts a backup's disk back; `rescue` boots the rescue system with the VPS's disk as a second disk, `unrescue` its own disk again. */
export const ACTION_TYPES = ['start', 'stop', 'reboot', 'rebuild', 'snapshot', 'restore', 'rescue', 'unrescue'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const ACTION_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** How consistent a snapshot's disk is: frozen filesystems (guest agent, or a stopped machine), or as after a power cut. */
export const SNAPSHOT_CONSISTENCIES = ['filesystem', 'crash'] as const;
export type SnapshotConsistency = (typeof SNAPSHOT_CONSISTENCIES)[number];

export const VPS_REGIONS = ['eu-central', 'eu-west', 'us-east'] as const;
