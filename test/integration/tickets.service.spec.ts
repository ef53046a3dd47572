import { EventEmitter2 } from '@nestjs/event-emitter';
import { Problem } from '@app/core';
import { SupportModule, TicketClosedEvent, TicketRepliedEvent, TicketsService } from '@app/support';
import { callerFor, startTestModule, TestModule } from '../support/test-module';

describe('TicketsService (TestingModule on the real database)', () => {
  let m: TestModule;
  let tickets: TicketsService;
  const events: (TicketRepliedEvent | TicketClosedEvent)[] = [];
  beforeAll(async () => {
    m = await startTestModule([SupportModule]);
    tickets = m.get(TicketsService);
    const emitter = m.get(EventEmitter2);
    emitter.on('ticket.replied', (e: TicketRepliedEvent) => events.push(e));
    emitter.on('ticket.closed', (e: TicketClosedEvent) => events.push(e));
  });
  afterAll(() => m.close());
  beforeEach(() => (events.length = 0));

  const open = (accountId: string) => tickets.create(callerFor(accountId), { subject: 'Disk full', message: 'No space left on /var' });

  it('opens a ticket with the account holder as the author of the first message', async () => {
    const accountId = await m.accountId('Ada Lovelace');
    const ticket = await open(accountId);
    expect(ticket).toMatchObject({
      status: 'open',
      priority: 'medium',
      department: 'general',
      replyCount: 0,
      reference: expect.stringMatching(/^T-\d+$/),
    });
    expect(ticket.messages).toEqual([
      expect.objectContaining({
        author: { type: 'customer', name: 'Ada Lovelace', memberId: null, email: `${accountId}@example.test`, keyId: null },
        message: 'No space left on /var',
        attachments: [],
      }),
    ]);
    expect(events).toEqual([]);
  });

  it('moves the status with each side and publishes ticket.replied after commit', async () => {
    const accountId = await m.accountId();
    const ticket = await open(accountId);
    await tickets.reply(callerFor(accountId), ticket.id, { message: 'Any news?' });
    expect((await tickets.get(accountId, ticket.id)).status).toBe('customer_reply');
    const staff = await tickets.staffReply(ticket.id, 'Cleaned up the logs.');
    expect(staff.author).toEqual({ type: 'staff', name: 'Support team', memberId: null, email: null, keyId: null });
    const after = await tickets.get(accountId, ticket.id);
    expect(after).toMatchObject({ status: 'answered', replyCount: 2 });
    expect(events.map((e) => [e.name, e.accountId, (e as TicketRepliedEvent).payload.author])).toEqual([
      ['ticket.replied', accountId, 'customer'],
      ['ticket.replied', accountId, 'staff'],
    ]);
  });

  it('closes once: a second close changes nothing and publishes nothing; replies are then refused', async () => {
    const accountId = await m.accountId();
    const ticket = await open(accountId);
    const closed = await tickets.close(callerFor(accountId), ticket.id);
    expect(closed).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
    expect(await tickets.close(callerFor(accountId), ticket.id)).toEqual(closed);
    expect(events.map((e) => e.name)).toEqual(['ticket.closed']);
    await expect(tickets.reply(callerFor(accountId), ticket.id, { message: 'again' })).rejects.toMatchObject({
      status: 409,
      code: 'ticket_closed',
    });
    await expect(tickets.staffReply(ticket.id, 'late')).rejects.toMatchObject({ status: 409, code: 'ticket_closed' });
  });

  it("treats another account's ticket as missing, and leaves it unchanged", async () => {
    const owner = await m.accountId();
    const stranger = await m.accountId();
    const ticket = await open(owner);
    for (const attempt of [
      () => tickets.get(stranger, ticket.id),
      () => tickets.reply(callerFor(stranger), ticket.id, { message: 'mine now' }),
      () => tickets.close(callerFor(stranger), ticket.id),
    ]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Problem);
      expect(err).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(await tickets.get(owner, ticket.id)).toMatchObject({ status: 'open', replyCount: 0 });
    expect((await tickets.list(stranger, { page: 1, pageSize: 10 })).total).toBe(0);
  });

  it('lists newest first, filtered by status, a page at a time', async () => {
    const accountId = await m.accountId();
    const first = await open(accountId);
    const second = await open(accountId);
    await tickets.close(callerFor(accountId), first.id);
    const all = await tickets.list(accountId, { page: 1, pageSize: 1 });
    expect(all.total).toBe(2);
    expect(all.data.map((t) => t.id)).toEqual([second.id]);
    expect((await tickets.list(accountId, { page: 2, pageSize: 1 })).data.map((t) => t.id)).toEqual([first.id]);
    expect((await tickets.list(accountId, { page: 1, pageSize: 10, status: 'closed' })).data.map((t) => t.id)).toEqual([first.id]);
  });
});
