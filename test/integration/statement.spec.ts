import { DataSource } from 'typeorm';
import { PageQuery, pageOfRows, poolQuery, runSql, sqlCount, sqlFirst, sqlRows, TransactionRunner } from '@app/core';
import { startTestModule, TestModule } from '../support/test-module';

/** One answer shape for every command, where TypeORM's query() gives UPDATE and DELETE as [rows, count]. */
describe('runSql and its helpers (on the real database)', () => {
  let m: TestModule;
  let db: DataSource;
  let tx: TransactionRunner;
  beforeAll(async () => {
    m = await startTestModule([]);
    db = m.get(DataSource);
    tx = m.get(TransactionRunner);
  });
  afterAll(() => m.close());

  const NAMED = 'SELECT id FROM accounts WHERE id = ANY($1::uuid[]) AND name = $2';

  it('gives the rows and the count of an UPDATE ... RETURNING, a SELECT and a DELETE alike', async () => {
    const ids = [await m.accountId(), await m.accountId()];
    const updated = await runSql<{ id: string }>(db, 'UPDATE accounts SET name = $2 WHERE id = ANY($1::uuid[]) RETURNING id', [
      ids,
      'Renamed',
    ]);
    expect(updated.count).toBe(2);
    expect(updated.rows.map((r) => r.id).sort()).toEqual([...ids].sort());

    const selected = await runSql(db, NAMED, [ids, 'Renamed']);
    expect(selected).toEqual({ rows: expect.any(Array), count: 2 });

    const first = await sqlFirst<{ id: string }>(db, 'UPDATE accounts SET name = $2 WHERE id = $1 RETURNING id', [ids[0], 'Once more']);
    expect(first).toEqual({ id: ids[0] });

    expect(await sqlCount(db, 'DELETE FROM accounts WHERE id = ANY($1::uuid[])', [ids])).toBe(2);
  });

  it('gives no rows, a count of 0 and a null first row when nothing matches', async () => {
    const nobody = ['00000000-0000-4000-8000-000000000000'];
    expect(await runSql(db, 'UPDATE accounts SET name = $2 WHERE id = ANY($1::uuid[]) RETURNING id', [nobody, 'x'])).toEqual({
      rows: [],
      count: 0,
    });
    expect(await sqlFirst(db, 'DELETE FROM accounts WHERE id = ANY($1::uuid[]) RETURNING id', [nobody])).toBeNull();
    expect(await sqlRows(db, NAMED, [nobody, 'x'])).toEqual([]);
  });

  it("runs on a transaction's manager inside that transaction", async () => {
    const id = await m.accountId('Before');
    const rollBack = new Error('roll back');
    const seen: unknown[] = [];
    const renamedThenRolledBack = tx.run(async (manager) => {
      await runSql(manager, 'UPDATE accounts SET name = $2 WHERE id = $1', [id, 'Inside']);
      seen.push(await sqlFirst(manager, 'SELECT name FROM accounts WHERE id = $1', [id]));
      seen.push(await pageOfRows(manager, { table: 'accounts', columns: 'name', where: 'id = $1', params: [id] }, new PageQuery()));
      throw rollBack;
    });
    await expect(renamedThenRolledBack).rejects.toBe(rollBack);
    expect(seen).toEqual([{ name: 'Inside' }, { rows: [{ name: 'Inside' }], total: 1 }]);
    expect(await sqlFirst(db, 'SELECT name FROM accounts WHERE id = $1', [id])).toEqual({ name: 'Before' });
  });

  describe("poolQuery, the hot paths' statements (prepared on PostgreSQL)", () => {
    const TABLE = `pool_query_${process.pid}`;
    afterAll(() => runSql(db, `DROP TABLE IF EXISTS ${TABLE}`));

    it('answers the same statement with the rows of each call, under the same name on every connection', async () => {
      await runSql(db, `CREATE TABLE ${TABLE} (id int PRIMARY KEY, label int NOT NULL)`);
      await runSql(db, `INSERT INTO ${TABLE} SELECT n, n * 10 FROM generate_series(1, 5) n`);
      const read = `SELECT id, label FROM ${TABLE} WHERE id = ANY($1::int[]) ORDER BY id`;
      // More calls at once than the pool has connections: each connection prepares the statement once.
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => poolQuery(db, read, [[(i % 5) + 1]])));
      expect(answers).toEqual(Array.from({ length: 24 }, (_, i) => [{ id: (i % 5) + 1, label: ((i % 5) + 1) * 10 }]));
    });

    it('runs a statement whose result type a migration changed (PostgreSQL refuses the prepared one), then prepares it again', async () => {
      const read = `SELECT id, label FROM ${TABLE} WHERE id = $1`;
      expect(await poolQuery(db, read, [2])).toEqual([{ id: 2, label: 20 }]);
      await runSql(db, `ALTER TABLE ${TABLE} ALTER COLUMN label TYPE text USING 'label ' || label`);
      expect(await poolQuery(db, read, [2])).toEqual([{ id: 2, label: 'label 20' }]);
      expect(await poolQuery(db, read, [3])).toEqual([{ id: 3, label: 'label 30' }]);
    });

    it("runs inside a transaction given the transaction's manager", async () => {
      const id = await m.accountId('Hot before');
      const rollBack = new Error('roll back');
      const seen = tx.run(async (manager) => {
        await runSql(manager, 'UPDATE accounts SET name = $2 WHERE id = $1', [id, 'Hot inside']);
        const rows = await poolQuery(manager, 'SELECT name FROM accounts WHERE id = $1', [id]);
        expect(rows).toEqual([{ name: 'Hot inside' }]);
        throw rollBack;
      });
      await expect(seen).rejects.toBe(rollBack);
      expect(await poolQuery(db, 'SELECT name FROM accounts WHERE id = $1', [id])).toEqual([{ name: 'Hot before' }]);
    });
  });
});
