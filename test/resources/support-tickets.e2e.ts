import { randomUUID } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { TicketsService } from '@app/support';
import { createAccount, TestAccount } from '../factories/accounts';
import { createService } from '../factories/services';
import { createTicket, uploadedAttachment } from '../factories/support';
import { startAppWithAccounts, startTestApp, TestAppWithAccounts } from '../support/test-app';

describe('Support tickets', () => {
  let t: TestAppWithAccounts;
  let owner: TestAccount;
  let stranger: TestAccount;
  beforeAll(async () => {
    ({ owner, stranger } = t = await startAppWithAccounts());
  });

  const get = (account: TestAccount, id: string) =>
    request(t.http).get(`/api/support/tickets/${id}`).set('Authorization', account.keyBearer);

  it('runs the whole lifecycle: open (200), staff answer, customer reply (201), close (200, idempotent)', async () => {
    const attachmentId = await uploadedAttachment(t, owner, Buffer.from('error 500 at 10:00\n'), 'error.log');
    const res = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', owner.bearer)
      .send({ subject: '  Site down ', message: 'Since 10:00.', priority: 'high', department: 'technical', attachmentIds: [attachmentId] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      reference: expect.stringMatching(/^T-\d{6}$/),
      subject: 'Site down',
      status: 'open',
      priority: 'high',
      department: 'technical',
      serviceId: null,
      replyCount: 0,
      lastReplyAt: null,
      closedAt: null,
    });
    expect(res.body.messages).toHaveLength(1);
    expect(res.body.messages[0]).toMatchObject({ author: { type: 'customer', name: 'Test User' }, message: 'Since 10:00.' });
    const [attachment] = res.body.messages[0].attachments;
    expect(attachment).toMatchObject({ id: attachmentId, filename: 'error.log', contentType: 'text/plain', size: 19 });
    const download = await request(t.http).get(new URL(attachment.downloadUrl).pathname);
    expect(download.status).toBe(200);
    expect(download.text).toBe('error 500 at 10:00\n');
    expect(download.headers['content-disposition']).toContain("filename*=UTF-8''error.log");

    const ticketId = res.body.id;
    const replied: unknown[] = [];
    t.app.get(EventEmitter2).on('ticket.replied', (e) => replied.push(e));
    await t.app.get(TicketsService).staffReply(ticketId, 'We are on it.');
    expect((await get(owner, ticketId)).body).toMatchObject({ status: 'answered', replyCount: 1 });
    expect(replied).toEqual([
      expect.objectContaining({ accountId: owner.id, payload: expect.objectContaining({ author: 'staff', ticketId }) }),
    ]);

    const reply = await request(t.http)
      .post(`/api/support/tickets/${ticketId}/reply`)
      .set('Authorization', owner.keyBearer)
      .send({ message: 'Thanks!' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ author: { type: 'customer' }, message: 'Thanks!', attachments: [] });
    const afterReply = (await get(owner, ticketId)).body;
    expect(afterReply).toMatchObject({ status: 'customer_reply', replyCount: 2, lastReplyAt: expect.any(String) });
    expect(afterReply.messages.map((m: { author: { type: string } }) => m.author.type)).toEqual(['customer', 'staff', 'customer']);

    const closed = await request(t.http).post(`/api/support/tickets/${ticketId}/close`).set('Authorization', owner.keyBearer);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
    const again = await request(t.http).post(`/api/support/tickets/${ticketId}/close`).set('Authorization', owner.keyBearer);
    expect(again.status).toBe(200);
    expect(again.body.closedAt).toBe(closed.body.closedAt);

    const late = await request(t.http)
      .post(`/api/support/tickets/${ticketId}/reply`)
      .set('Authorization', owner.keyBearer)
      .send({ message: 'one more' });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('ticket_closed');
    await expect(t.app.get(TicketsService).staffReply(ticketId, 'late')).rejects.toMatchObject({ code: 'ticket_closed' });
  });

  it('lists tickets newest first, filtered by status', async () => {
    const account = await createAccount(t);
    const a = await createTicket(t, account, { subject: 'first' });
    const b = await createTicket(t, account, { subject: 'second' });
    await request(t.http).post(`/api/support/tickets/${a.id}/close`).set('Authorization', account.keyBearer).expect(200);
    const all = await request(t.http).get('/api/support/tickets').set('Authorization', account.bearer);
    expect(all.body).toMatchObject({ total: 2, page: 1, pageSize: 10, totalPages: 1 });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect(all.body.data[0].messages).toBeUndefined();
    const open = await request(t.http).get('/api/support/tickets?status=open').set('Authorization', account.keyBearer);
    expect(open.body.data.map((x: { id: string }) => x.id)).toEqual([b.id]);
    await request(t.http).get('/api/support/tickets?status=pending').set('Authorization', account.keyBearer).expect(400);
    await request(t.http).get('/api/support/tickets?pageSize=101').set('Authorization', account.keyBearer).expect(400);
  });

  it('keeps the totals of the list and of each status right through create, replies, close and delete (trigger-kept counters)', async () => {
    const account = await createAccount(t);
    /** The list's totals, unfiltered and per status, beside the same counted from the rows. */
    const totals = async () => {
      const listed: Record<string, number> = {};
      for (const status of ['', 'open', 'answered', 'customer_reply', 'closed']) {
        const res = await request(t.http)
          .get(`/api/support/tickets${status ? `?status=${status}` : ''}`)
          .set('Authorization', account.keyBearer)
          .expect(200);
        listed[status || 'all'] = res.body.total;
      }
      const rows: { status: string; n: number }[] = await t.db.query(
        'SELECT status, count(*)::int AS n FROM tickets WHERE account_id = $1 GROUP BY status',
        [account.id],
      );
      const counted: Record<string, number> = { all: 0, open: 0, answered: 0, customer_reply: 0, closed: 0 };
      for (const { status, n } of rows) {
        counted[status] += n;
        counted.all += n;
      }
      expect(listed).toEqual(counted);
      return listed;
    };
    expect(await totals()).toEqual({ all: 0, open: 0, answered: 0, customer_reply: 0, closed: 0 });
    const a = await createTicket(t, account, { subject: 'first' });
    const b = await createTicket(t, account, { subject: 'second' });
    // Several in one statement (the rate limit allows two a minute through the API).
    await t.db.query(
      `INSERT INTO tickets (account_id, subject, status) SELECT $1, 'bulk ' || i, CASE WHEN i = 1 THEN 'closed' ELSE 'open' END
         FROM generate_series(1, 3) i`,
      [account.id],
    );
    expect(await totals()).toEqual({ all: 5, open: 4, answered: 0, customer_reply: 0, closed: 1 });
    await t.app.get(TicketsService).staffReply(a.id, 'We are on it.');
    expect(await totals()).toMatchObject({ open: 3, answered: 1 });
    await request(t.http)
      .post(`/api/support/tickets/${a.id}/reply`)
      .set('Authorization', account.keyBearer)
      .send({ message: 'Still down.' })
      .expect(201);
    expect(await totals()).toMatchObject({ open: 3, answered: 0, customer_reply: 1 });
    await request(t.http).post(`/api/support/tickets/${b.id}/close`).set('Authorization', account.keyBearer).expect(200);
    await request(t.http).post(`/api/support/tickets/${b.id}/close`).set('Authorization', account.keyBearer).expect(200);
    expect(await totals()).toEqual({ all: 5, open: 2, answered: 0, customer_reply: 1, closed: 2 });
    // An UPDATE that changes no status, and a delete (the operator's side; no route deletes a ticket).
    await t.db.query(`UPDATE tickets SET updated_at = now() WHERE account_id = $1`, [account.id]);
    await t.db.query(`DELETE FROM tickets WHERE account_id = $1 AND subject IN ('bulk 1', 'bulk 2')`, [account.id]);
    expect(await totals()).toEqual({ all: 3, open: 1, answered: 0, customer_reply: 1, closed: 1 });
    // The account's deletion takes its tickets and their counters.
    await t.db.query('DELETE FROM accounts WHERE id = $1', [account.id]);
    expect(await t.db.query('SELECT count(*)::int AS n FROM ticket_counts WHERE account_id = $1', [account.id])).toEqual([{ n: 0 }]);
  });

  it("takes a serviceId only if it is the caller's own service", async () => {
    const account = await createAccount(t);
    const mine = await createService(t, account.id);
    const theirs = await createService(t, stranger.id);
    const ok = await createTicket(t, account, { serviceId: mine.id });
    expect(ok.serviceId).toBe(mine.id);
    const res = await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', account.keyBearer)
      .send({ subject: 's', message: 'm', serviceId: theirs.id });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'serviceId', message: 'is not a service of this account' }]);
  });

  it.each([
    [{ message: 'm' }],
    [{ subject: '', message: 'm' }],
    [{ subject: 'x'.repeat(201), message: 'm' }],
    [{ subject: 's', message: '' }],
    [{ subject: 's', message: 'x'.repeat(64001) }],
    [{ subject: 's', message: 'm', priority: 'urgent' }],
    [{ subject: 's', message: 'm', department: 'sales' }],
    [{ subject: 's', message: 'm', serviceId: 'nope' }],
    [{ subject: 's', message: 'm', attachmentIds: ['nope'] }],
    [{ subject: 's', message: 'm', status: 'closed' }],
  ])('answers 400 for bad ticket input #%#', async (body) => {
    const res = await request(t.http).post('/api/support/tickets').set('Authorization', owner.keyBearer).send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
  });

  it("answers 404 for another account's ticket in every operation and leaves it untouched", async () => {
    const ticket = await createTicket(t, owner);
    const before = (await get(owner, ticket.id)).body;
    for (const call of [
      request(t.http).get(`/api/support/tickets/${ticket.id}`),
      request(t.http).post(`/api/support/tickets/${ticket.id}/reply`).send({ message: 'hijack' }),
      request(t.http).post(`/api/support/tickets/${ticket.id}/close`),
    ]) {
      const res = await call.set('Authorization', stranger.keyBearer);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await get(owner, ticket.id)).body).toEqual({ ...before, messages: before.messages.map((m: object) => ({ ...m })) });
    const list = await request(t.http).get('/api/support/tickets').set('Authorization', stranger.keyBearer);
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(ticket.id);
  });

  it('gives 20 concurrent closes only 200s and exactly one ticket.closed event', async () => {
    const ticket = await createTicket(t, owner);
    const events: unknown[] = [];
    t.app
      .get(EventEmitter2)
      .on('ticket.closed', (e: { payload: { ticketId: string } }) => e.payload.ticketId === ticket.id && events.push(e));
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(t.http).post(`/api/support/tickets/${ticket.id}/close`).set('Authorization', owner.keyBearer),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Events are emitted synchronously after COMMIT, before each response: all are in by now.
    expect(events).toHaveLength(1);
  });

  it('answers 401 without a token, 400 for a bad id, 403 to a read-only key on writes', async () => {
    await request(t.http).get('/api/support/tickets').expect(401);
    await request(t.http).post('/api/support/tickets').send({ subject: 's', message: 'm' }).expect(401);
    await get(owner, 'not-a-uuid').expect(400);
    const reader = await createAccount(t, { scopes: ['read'] });
    await request(t.http).get('/api/support/tickets').set('Authorization', reader.keyBearer).expect(200);
    await request(t.http)
      .post('/api/support/tickets')
      .set('Authorization', reader.keyBearer)
      .send({ subject: 's', message: 'm' })
      .expect(403);
  });

  it('limits new tickets to 2 a minute per account (429 with Retry-After)', async () => {
    const limited = await startTestApp({ RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '2' });
    try {
      const account = await createAccount(limited);
      const open = () =>
        request(limited.http).post('/api/support/tickets').set('Authorization', account.keyBearer).send({ subject: 's', message: 'm' });
      expect((await open()).status).toBe(200);
      expect((await open()).status).toBe(200);
      const third = await open();
      expect(third.status).toBe(429);
      expect(third.body.code).toBe('rate_limited');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      await request(limited.http).get('/api/support/tickets').set('Authorization', account.keyBearer).expect(200);
    } finally {
      await limited.close();
    }
  });

  it('counts only tickets opened: refused (400) and replayed requests leave the 2 a minute as they were (issue 42)', async () => {
    const limited = await startTestApp({ RATE_LIMIT_TICKET_CREATE_PER_MINUTE: '2' });
    try {
      const account = await createAccount(limited);
      const open = (body: object, key?: string) => {
        const req = request(limited.http).post('/api/support/tickets').set('Authorization', account.keyBearer);
        return (key ? req.set('Idempotency-Key', key) : req).send(body);
      };
      for (const body of [{ message: 'no subject' }, { subject: 's' }, { subject: 's', message: 'm', attachmentIds: [randomUUID()] }]) {
        expect((await open(body)).status).toBe(400);
      }
      const key = randomUUID();
      expect((await open({ subject: 'first', message: 'm' }, key)).status).toBe(200);
      const replay = await open({ subject: 'first', message: 'm' }, key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await open({ subject: 'second', message: 'm' })).status).toBe(200);
      const third = await open({ subject: 'third', message: 'm' });
      expect(third.status).toBe(429);
      // A refused ticket past the limit is still refused for the limit, not for its input.
      expect((await open({ message: 'no subject' })).status).toBe(429);
      expect((await request(limited.http).get('/api/support/tickets').set('Authorization', account.keyBearer).expect(200)).body.total).toBe(
        2,
      );
    } finally {
      await limited.close();
    }
  });
});
