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

  it('words a metric alert crossing with its unit, once fired and once resolved', () => {
    const alert = (name: 'instance.alert_fired' | 'instance.alert_resolved', type: string) =>
      domainEvent(name, account, { serviceId, serviceName: 'web-1', alertId: serviceId, type, above: 80, forMinutes: 5, value: 93.5 });
    expect(notificationFor(alert('instance.alert_fired', 'cpu'))).toMatchObject({
      type: 'instance_alert_fired',
      severity: 'warning',
      title: 'web-1: cpu above 80%',
      body: 'The cpu of web-1 has been above 80% for 5 minutes (now 93.5).',
      entity: { type: 'service', id: serviceId },
    });
    expect(notificationFor(alert('instance.alert_resolved', 'network.in'))).toMatchObject({
      type: 'instance_alert_resolved',
      severity: 'info',
      body: 'The network.in of web-1 is no longer above 80 bytes/s.',
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

  it('tells of a move to another host before, and after as running again or stopped', () => {
    const move = { serviceId, serviceName: 'web-1', moveId: serviceId };
    expect(notificationFor(domainEvent('instance.move_started', account, move))).toMatchObject({
      type: 'instance_move_started',
      severity: 'warning',
      title: 'web-1 is moving to another host',
    });
    const finished = (outcome: 'running' | 'stopped') =>
      notificationFor(domainEvent('instance.move_finished', account, { ...move, outcome }));
    expect(finished('running')).toMatchObject({
      type: 'instance_move_finished',
      severity: 'info',
      title: 'web-1 is running on its new host',
    });
    expect(finished('stopped')).toMatchObject({ severity: 'warning', title: 'web-1 is stopped after its move' });
  });
});
