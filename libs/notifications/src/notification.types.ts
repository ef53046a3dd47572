export const NOTIFICATION_TYPES = [
  'ticket_replied',
  'ticket_closed',
  'instance_action_succeeded',
  'instance_action_failed',
  'instance_fault',
  'instance_backup_failed',
  'instance_alert_fired',
  'instance_alert_resolved',
  'service_status_changed',
  'object_storage_key_rotated',
  'object_storage_quota',
  'api_key_created',
  'api_key_expiring',
  'webhook_disabled',
  'instance_rescue_started',
  'instance_rescue_ended',
  'instance_password_reset',
  'instance_move_started',
  'instance_move_finished',
  'instance_evacuated',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface NewNotification {
  accountId: string;
  type: NotificationType;
  severity: Severity;
  title: string;
  body: string;
  link: string | null;
  entity: { type: string; id: string } | null;
}

/** A notifications row as the driver returns it. */
export interface NotificationRow {
  id: string;
  type: string;
  severity: string;
  title: string;
  body: string;
  link: string | null;
  entity_type: string | null;
  entity_id: string | null;
  read_at: Date | null;
  created_at: Date;
}
