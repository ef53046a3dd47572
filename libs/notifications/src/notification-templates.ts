import type { DomainEvent } from '@app/core';
import { NewNotification } from './notification.types';

const ACTION_VERB: Record<string, string> = {
  start: 'started',
  stop: 'stopped',
  reboot: 'rebooted',
  rebuild: 'rebuilt',
  restore: 'restored from a backup',
  rescue: 'booted into rescue',
  unrescue: 'booted from its own disk',
};
const STATUS_SEVERITY: Record<string, NewNotification['severity']> = {
  suspended: 'critical',
  terminated: 'critical',
  cancelled: 'warning',
};
/** The route of each kind of resource a notification can be about. */
const ROUTES = {
  ticket: '/api/support/tickets',
  service: '/api/services',
  api_key: '/api/auth/api-keys',
  webhook: '/api/webhooks',
} as const;
const TITLE_MAX = 200; // the column's length; names inside titles come from other areas

/** What the customer is told about each domain event; null when the event is not news to them. */
export function notificationFor(event: DomainEvent): NewNotification | null {
  const notification = describe(event);
  if (notification && notification.title.length > TITLE_MAX) notification.title = `${notification.title.slice(0, TITLE_MAX - 1)}…`;
  return notification;
}

/** What a notification points to: the resource (`entity`) and its route, or a route below it (`link`). */
function about(type: keyof typeof ROUTES, id: string, below = ''): Pick<NewNotification, 'link' | 'entity'> {
  return { link: `${ROUTES[type]}/${id}${below}`, entity: { type, id } };
}

function describe(event: DomainEvent): NewNotification | null {
  const base = { accountId: event.accountId };
  switch (event.name) {
    case 'ticket.replied': {
      const p = event.payload;
      if (p.author !== 'staff') return null;
      return {
        ...base,
        type: 'ticket_replied',
        severity: 'info',
        title: `Support replied to ${p.reference}`,
        body: `There is a new answer on your ticket "${p.subject}".`,
        ...about('ticket', p.ticketId),
      };
    }
    case 'ticket.closed': {
      const p = event.payload;
      return {
        ...base,
        type: 'ticket_closed',
        severity: 'info',
        title: `Ticket ${p.reference} closed`,
        body: `Your ticket "${p.subject}" was closed.`,
        ...about('ticket', p.ticketId),
      };
    }
    case 'instance.action_succeeded':
    case 'instance.action_failed': {
      const p = event.payload;
      const ok = event.name === 'instance.action_succeeded';
      return {
        ...base,
        type: ok ? 'instance_action_succeeded' : 'instance_action_failed',
        severity: ok ? 'info' : 'warning',
        title: ok ? `${p.serviceName} ${ACTION_VERB[p.type] ?? p.type}` : `${p.serviceName}: ${p.type} failed`,
        body: ok
          ? `The ${p.type} action on ${p.serviceName} finished successfully.`
          : `The ${p.type} action on ${p.serviceName} failed: ${p.error?.message ?? 'unknown error'}.`,
        ...about('service', p.serviceId, `/instance/actions/${p.actionId}`),
      };
    }
    case 'instance.fault': {
      const p = event.payload;
      const missing = p.code === 'machine_missing';
      return {
        ...base,
        type: 'instance_fault',
        severity: 'critical',
        title: missing ? `${p.serviceName}: the machine is missing` : `${p.serviceName} could not be set up`,
        body: missing
          ? `${p.message} Restore one of its backups to make it again, or open a support ticket for this service.`
          : `${p.message} Open a support ticket for this service to have it looked at.`,
        ...about('service', p.serviceId),
      };
    }
    case 'instance.backup_failed': {
      const p = event.payload;
      return {
        ...base,
        type: 'instance_backup_failed',
        severity: 'warning',
        title: `${p.serviceName}: backup failed`,
        body: `Today's backup of ${p.serviceName} failed: ${p.error.message} Your earlier backups are kept; the next one is tried at its usual time.`,
        ...about('service', p.serviceId, '/instance/backups'),
      };
    }
    case 'instance.alert_fired':
    case 'instance.alert_resolved': {
      const p = event.payload;
      const fired = event.name === 'instance.alert_fired';
      const limit = `${p.above}${p.type === 'cpu' ? '%' : ' bytes/s'}`;
      return {
        ...base,
        type: fired ? 'instance_alert_fired' : 'instance_alert_resolved',
        severity: fired ? 'warning' : 'info',
        title: fired ? `${p.serviceName}: ${p.type} above ${limit}` : `${p.serviceName}: ${p.type} back to normal`,
        body: fired
          ? `The ${p.type} of ${p.serviceName} has been above ${limit} for ${p.forMinutes} minutes (now ${p.value}).`
          : `The ${p.type} of ${p.serviceName} is no longer above ${limit}.`,
        ...about('service', p.serviceId, '/instance/metrics'),
      };
    }
    case 'instance.rescue_started': {
      const p = event.payload;
      return {
        ...base,
        type: 'instance_rescue_started',
        severity: 'warning',
        title: `${p.serviceName} is booting into rescue mode`,
        body: `${p.serviceName} is booting the rescue system with its own disk as /dev/vdb. The rescue ends by itself at ${p.endsAt}. If this was not you, unrescue it and change your password.`,
        ...about('service', p.serviceId, `/instance/actions/${p.actionId}`),
      };
    }
    case 'instance.rescue_ended': {
      const p = event.payload;
      return {
        ...base,
        type: 'instance_rescue_ended',
        severity: 'info',
        title: `${p.serviceName} is leaving rescue mode`,
        body:
          p.reason === 'expired'
            ? `The rescue of ${p.serviceName} ran out of time: it is booting its own disk again.`
            : `${p.serviceName} is booting its own disk again.`,
        ...about('service', p.serviceId, `/instance/actions/${p.actionId}`),
      };
    }
    case 'instance.evacuated': {
      const p = event.payload;
      const said = {
        restarted: {
          severity: 'warning' as const,
          title: `${p.serviceName} was started again on another host`,
          body: `The host of ${p.serviceName} stopped answering. ${p.serviceName} was started again on another host from its own disk: nothing written to it was lost, but it was restarted.`,
        },
        restored: {
          severity: 'critical' as const,
          title: `${p.serviceName} was restored from a backup on another host`,
          body: `The host of ${p.serviceName} stopped answering. ${p.serviceName} was restored on another host from its backup of ${p.backupAt}; anything written after that backup is lost.`,
        },
        rebuilt: {
          severity: 'critical' as const,
          title: `${p.serviceName} was rebuilt from its image on another host`,
          body: `The host of ${p.serviceName} stopped answering and it had no backup: it was rebuilt on another host from image ${p.image}; the data on its disk is lost.`,
        },
      }[p.outcome];
      return { ...base, type: 'instance_evacuated', ...said, ...about('service', p.serviceId) };
    }
    case 'instance.password_reset': {
      const p = event.payload;
      return {
        ...base,
        type: 'instance_password_reset',
        severity: 'warning',
        title: `Root password of ${p.serviceName} reset`,
        body: `A new root password was set in ${p.serviceName}. If this was not you, reset it again and change your password.`,
        ...about('service', p.serviceId),
      };
    }
    case 'instance.move_started': {
      const p = event.payload;
      return {
        ...base,
        type: 'instance_move_started',
        severity: 'warning',
        title: `${p.serviceName} is moving to another host`,
        body: `${p.serviceName} is being shut down for maintenance of its host, moved with its disk to another host and started again there. Its address and data stay the same.`,
        ...about('service', p.serviceId),
      };
    }
    case 'instance.move_finished': {
      const p = event.payload;
      const running = p.outcome === 'running';
      return {
        ...base,
        type: 'instance_move_finished',
        severity: running ? 'info' : 'warning',
        title: running ? `${p.serviceName} is running on its new host` : `${p.serviceName} is stopped after its move`,
        body: running
          ? p.live
            ? `${p.serviceName} was moved to another host while it ran, for maintenance of its old one. No action is needed: its processes, address and data are as they were.`
            : `${p.serviceName} was moved to another host and started again.`
          : `${p.serviceName} could not be started again after the maintenance of its host: it is stopped. Start it, or open a support ticket if it does not start.`,
        ...about('service', p.serviceId),
      };
    }
    case 'service.status_changed': {
      const p = event.payload;
      return {
        ...base,
        type: 'service_status_changed',
        severity: STATUS_SEVERITY[p.to] ?? 'info',
        title: `${p.serviceName} is now ${p.to}`,
        body: `The status of ${p.serviceName} changed from ${p.from} to ${p.to}${p.reason ? `: ${p.reason}` : ''}.`,
        ...about('service', p.serviceId),
      };
    }
    case 'object_storage.credentials_rotated': {
      const p = event.payload;
      return {
        ...base,
        type: 'object_storage_key_rotated',
        severity: 'warning',
        title: `New S3 key for ${p.serviceName}`,
        body: `The S3 key of ${p.serviceName} was replaced by ${p.accessKeyId}; the previous key no longer works. If this was not you, rotate it again and change your password.`,
        ...about('service', p.serviceId, '/object-storage/credentials'),
      };
    }
    case 'object_storage.quota_warning': {
      const p = event.payload;
      const full = p.percent >= 100;
      return {
        ...base,
        type: 'object_storage_quota',
        severity: full ? 'critical' : 'warning',
        title: full ? `${p.serviceName} is full` : `${p.serviceName} is at ${p.percent}% of its quota`,
        body: full
          ? `${p.serviceName} has reached its quota (${p.usedBytes} of ${p.quotaBytes} bytes, ${p.objects} of ${p.quotaObjects} objects): writes are refused. Delete data or move to a larger product.`
          : `${p.serviceName} uses ${p.usedBytes} of ${p.quotaBytes} bytes and ${p.objects} of ${p.quotaObjects} objects. Writes will be refused at 100%.`,
        ...about('service', p.serviceId),
      };
    }
    case 'api_key.created': {
      const p = event.payload;
      return {
        ...base,
        type: 'api_key_created',
        severity: 'info',
        title: `API key "${p.name}" created`,
        body: `A new API key ${p.prefix}… was created. If this was not you, revoke it and change your password.`,
        ...about('api_key', p.apiKeyId),
      };
    }
    case 'api_key.expiring': {
      const p = event.payload;
      return {
        ...base,
        type: 'api_key_expiring',
        severity: 'warning',
        title: `API key "${p.name}" expires soon`,
        body: `The API key ${p.prefix}… expires at ${p.expiresAt}. Create a new key before then.`,
        ...about('api_key', p.apiKeyId),
      };
    }
    case 'webhook.disabled': {
      const p = event.payload;
      return {
        ...base,
        type: 'webhook_disabled',
        severity: 'warning',
        title: 'A webhook endpoint was disabled',
        body: `Deliveries to ${p.url} have failed since ${p.failingSince}, so the endpoint was disabled. Fix the receiver, then enable it again.`,
        ...about('webhook', p.webhookId),
      };
    }
    default:
      return null;
  }
}
