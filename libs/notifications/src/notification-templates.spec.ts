import { domainEvent } from '@app/core';
import { notificationFor } from './notification-templates';

const account = '00000000-0000-4000-8000-00000000000a';
const serviceId = '00000000-0000-4000-8000-00000000000b';
const service = (to: string) =>
  domainEvent('service.status_changed', account, { serviceId, serviceName: 'web-1', from: 'active', to, reason: null });

describe('notificationFor', () => {
  it('makes nothing of a customer reply, a notification of a staff reply', () => {
    const reply = (author: 'customer' | 'staff') =>
      domainEvent('ticket.replied', account, { ticketId: serviceId, reference: 'T-000001', subject: 'Disk', messageId: serviceId, author });
    expect(notificationFor(reply('customer'))).toBeNull();
    expect(notificationFor(reply('staff'))).toMatchObject({
      accountId: account,
      type: 'ticket_replied',
      entity: { type: 'ticket', id: serviceId },
    });
  });

  it.each([
    ['active', 'info'],
    ['cancelled', 'warning'],
    ['suspended', 'critical'],
    ['terminated', 'critical'],
  ])('rates a service becoming %s as %s', (to, severity) => {
    expect(notificationFor(service(to))).toMatchObject({
      severity,
      title: `web-1 is now ${to}`,
      body: `The status of web-1 changed from active to ${to}.`,
    });
  });

  it('says why an instance action failed', () => {
    const failed = domainEvent('instance.action_failed', account, {
      serviceId,
      serviceName: 'web-1',
      actionId: serviceId,
      type: 'stop',
      error: { code: 'timeout', message: 'the instance did not stop in time' },
    });
    expect(notificationFor(failed)).toMatchObject({
      severity: 'warning',
      body: 'The stop action on web-1 failed: the instance did not stop in time.',
    });
  });

  it('keeps titles within 200 characters', () => {
    const long = domainEvent('service.status_changed', account, {
      serviceId,
      serviceName: 'x'.repeat(300),
      from: 'active',
      to: 'suspended',
      reason: null,
    });
    const title = notificationFor(long)!.title;
    expect(title).toHaveLength(200);
    expect(title.endsWith('…')).toBe(true);
  });

  it('makes nothing of an event it does not know', () => {
    expect(notificationFor({ name: 'something.else', accountId: account, occurredAt: new Date(), payload: {} } as never)).toBeNull();
  });
});
