import request from 'supertest';
import { createAccount } from '../factories/accounts';
import { createTicket } from '../factories/support';
import { runCli } from '../support/run-cli';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_DATABASE_URL } from '../support/test-env';

/** The operator's staff reply runs through the same service layer (PostgreSQL: CLI and app share the database). */
(TEST_DATABASE_URL ? describe : describe.skip)('ticket:staff-reply', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('adds a staff message, sets the ticket answered and notifies the customer', async () => {
    const account = await createAccount(t);
    const ticket = await createTicket(t, account);
    const res = await runCli(['ticket:staff-reply', '--ticket', ticket.id, '--message', 'Fixed on our side.', '--name', 'Grace']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.lines).toEqual([
      expect.objectContaining({
        author: { type: 'staff', name: 'Grace', memberId: null, email: null, keyId: null },
        message: 'Fixed on our side.',
      }),
    ]);
    const after = await request(t.http).get(`/api/support/tickets/${ticket.id}`).set('Authorization', account.keyBearer);
    expect(after.body.status).toBe('answered');
    expect(after.body.messages.map((m: { author: { type: string } }) => m.author.type)).toEqual(['customer', 'staff']);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM notifications WHERE account_id = $1 AND type = 'ticket_replied'`, [
      account.id,
    ]);
    expect(n).toBe(1);
  });

  it('refuses an unknown ticket and a closed one', async () => {
    const missing = await runCliIn(t.app, ['ticket:staff-reply', '--ticket', '6b0c8c3e-0000-4000-8000-000000000000', '--message', 'x']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('not_found');
    const account = await createAccount(t);
    const ticket = await createTicket(t, account);
    await request(t.http).post(`/api/support/tickets/${ticket.id}/close`).set('Authorization', account.keyBearer).expect(200);
    const closed = await runCliIn(t.app, ['ticket:staff-reply', '--ticket', ticket.id, '--message', 'x']);
    expect(closed.stderr).toContain('ticket_closed');
  });
});
