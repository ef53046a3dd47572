import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { createAccount, TestAccount } from '../factories/accounts';
import { linkToken, TestSmtpServer } from '../support/smtp';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 56: docs/roles.md says which role may call which route; this walks it against the OpenAPI
// document and the running app, with a token of each role on one account.

const ROLES = ['owner', 'admin', 'member', 'read_only'] as const;
type Role = (typeof ROLES)[number];
type Cell = 'yes' | 'no' | 'login';
const CELLS: readonly string[] = ['yes', 'no', 'login'];
const GUARD_REFUSALS = ['insufficient_role', 'no_account', 'insufficient_scope'];

interface Row {
  key: string;
  method: string;
  path: string;
  cells: Record<Role, Cell>;
}

interface Operation {
  security?: unknown[];
  requestBody?: unknown;
  'x-required-role'?: string;
  'x-login-route'?: boolean;
}

/** The one table of docs/roles.md whose header is `| METHOD | path | owner | admin | member | read_only | ...`. */
function readRoleTable(): Row[] {
  const lines = readFileSync(join(__dirname, '../../docs/roles.md'), 'utf8').split('\n');
  const cellsOf = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim().replace(/^`|`$/g, ''));
  const headers = lines.flatMap((line, i) => (/^\|\s*METHOD\s*\|/.test(line) ? [i] : []));
  if (headers.length !== 1) throw new Error(`docs/roles.md has ${headers.length} role tables, not one`);
  const header = cellsOf(lines[headers[0]]);
  if (header.slice(0, 6).join(' ') !== `METHOD path ${ROLES.join(' ')}`) throw new Error(`unexpected header: ${header.join(' | ')}`);
  const rows: Row[] = [];
  for (const line of lines.slice(headers[0] + 2)) {
    if (!line.startsWith('|')) break;
    const [method, path, ...roleCells] = cellsOf(line);
    const bad = roleCells.slice(0, 4).filter((cell) => !CELLS.includes(cell));
    if (roleCells.length < 4 || bad.length) throw new Error(`docs/roles.md: bad row: ${line}`);
    const cells = Object.fromEntries(ROLES.map((role, i) => [role, roleCells[i]])) as Record<Role, Cell>;
    rows.push({ key: `${method} ${path}`, method, path, cells });
  }
  return rows;
}

/** What the document says a row must be: login everywhere, or yes from the least role up. */
function expectedCells(op: Operation): Record<Role, Cell> {
  const needed = op['x-required-role'] as Role | undefined;
  return Object.fromEntries(
    ROLES.map((role, i) => [
      role,
      op['x-login-route'] ? 'login' : needed && ROLES.includes(needed) && i <= ROLES.indexOf(needed) ? 'yes' : 'no',
    ]),
  ) as Record<Role, Cell>;
}

/** Runs `work` over `items`, `limit` at a time. */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

describe('Roles: docs/roles.md, the OpenAPI document and the guard agree on every route (issue 56)', () => {
  let t: TestApp;
  let operations: Map<string, Operation>;
  let baseUrl: string;
  const smtp = new TestSmtpServer();
  const rows = readRoleTable();
  let owner: TestAccount;
  /** The `Authorization` header of a login acting on the owner's account with each role. */
  const bearers = {} as Record<Role, string>;
  const memberIds = {} as Record<Role, string>;

  beforeAll(async () => {
    await smtp.start();
    t = await startTestApp({ DOCS_ENABLED: 'true', SMTP_URL: smtp.url, RATE_LIMIT_INVITATIONS_PER_HOUR: '100000' });
    baseUrl = `http://127.0.0.1:${(t.http.address() as AddressInfo).port}`;
    const doc = (await t.get('/openapi.json').expect(200)).body as { paths: Record<string, Record<string, Operation>> };
    operations = new Map(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => op.security?.length)
          .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
      ),
    );
    owner = await createAccount(t);
    bearers.owner = owner.bearer;
    // Three more logins join the owner's account through the real invitation: mailed link, accept, switch.
    await Promise.all(
      (['admin', 'member', 'read_only'] as const).map(async (role) => {
        const login = await createAccount(t);
        await request(t.http)
          .post('/api/account/invitations')
          .set('Authorization', owner.bearer)
          .send({ email: login.email, role })
          .expect(201);
        const token = linkToken(await smtp.waitForMail(login.email, /invited/), '/accept-invitation');
        const accepted = await request(t.http)
          .post('/api/auth/invitations/accept')
          .set('Authorization', login.bearer)
          .send({ token })
          .expect(200);
        expect(accepted.body).toMatchObject({ accountId: owner.id, role });
        memberIds[role] = accepted.body.memberId;
        const switched = await request(t.http)
          .post('/api/auth/switch-account')
          .set('Authorization', login.bearer)
          .send({ accountId: owner.id })
          .expect(200);
        bearers[role] = `Bearer ${switched.body.accessToken}`;
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await smtp.stop();
  });

  it('has exactly one row for every operation that needs a bearer token, and each row names one', () => {
    const keys = rows.map((row) => row.key);
    expect({
      twice: keys.filter((key, i) => keys.indexOf(key) !== i),
      withoutRow: [...operations.keys()].filter((key) => !keys.includes(key)),
      noSuchOperation: keys.filter((key) => !operations.has(key)),
    }).toEqual({ twice: [], withoutRow: [], noSuchOperation: [] });
  });

  it("agrees with each operation's x-required-role or x-login-route", () => {
    const disagreements = rows
      .filter((row) => operations.has(row.key))
      .flatMap((row) => {
        const expected = expectedCells(operations.get(row.key)!);
        const op = operations.get(row.key)!;
        const wrong = ROLES.filter((role) => row.cells[role] !== expected[role]);
        const said = op['x-login-route'] ? 'x-login-route' : `x-required-role ${op['x-required-role']}`;
        return wrong.length ? [`${row.key}: the table says ${ROLES.map((r) => row.cells[r]).join('/')}, the document ${said}`] : [];
      });
    expect(disagreements).toEqual([]);
  });

  it('walks every non-login operation with a token of each role: "no" is 403 insufficient_role, "yes" passes the guard', async () => {
    const calls = rows
      .filter((row) => operations.has(row.key) && ROLES.some((role) => row.cells[role] !== 'login'))
      .flatMap((row) => ROLES.map((role) => ({ row, role })));
    const wrong: string[] = [];
    await inPool(calls, 8, async ({ row, role }) => {
      const path = row.path.replace(/\{[^}]+\}/g, () => randomUUID());
      const withBody = operations.get(row.key)!.requestBody !== undefined;
      const abort = new AbortController();
      const res = await fetch(`${baseUrl}${path}`, {
        method: row.method,
        headers: { Authorization: bearers[role], ...(withBody ? { 'Content-Type': 'application/json' } : {}) },
        body: withBody ? '{}' : undefined,
        signal: abort.signal,
      });
      // Only a refusal's body is read: a stream (notifications) that the guard let through is cut.
      const json = res.headers.get('content-type')?.includes('json');
      const code = json && res.status >= 400 ? ((await res.json()) as { code?: string }).code : undefined;
      if (!json || res.status < 400) abort.abort();
      const answer = `${res.status}${code ? ` ${code}` : ''}`;
      const expected = row.cells[role];
      const refused = res.status === 401 || (res.status === 403 && GUARD_REFUSALS.includes(code ?? ''));
      if (expected === 'no' && !(res.status === 403 && code === 'insufficient_role')) {
        wrong.push(`${role} ${row.key}: "no" but ${answer}`);
      } else if (expected === 'yes' && refused) {
        wrong.push(`${role} ${row.key}: "yes" but ${answer}`);
      }
    });
    expect(wrong.sort()).toEqual([]);
  });

  it('a login removed from the account gets 403 no_account on its routes and still 200 on its own (/api/auth/me)', async () => {
    await request(t.http).delete(`/api/account/members/${memberIds.member}`).set('Authorization', owner.bearer).expect(204);
    const refused = await t.get('/api/services', bearers.member).expect(403);
    expect(refused.body.code).toBe('no_account');
    await t.get('/api/auth/me', bearers.member).expect(200);
  });
});
