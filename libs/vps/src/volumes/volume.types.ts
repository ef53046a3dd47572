export const VOLUME_STATES = ['detached', 'attaching', 'attached', 'detaching', 'resizing'] as const;
export type VolumeState = (typeof VOLUME_STATES)[number];

export const VOLUME_ACTION_TYPES = ['attach', 'detach', 'resize'] as const;
export type VolumeActionType = (typeof VOLUME_ACTION_TYPES)[number];

export const VOLUME_ACTION_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type VolumeActionStatus = (typeof VOLUME_ACTION_STATUSES)[number];
