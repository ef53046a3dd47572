import { DataSource } from 'typeorm';
import { PageQuery, pageOfRows, runSql, sqlCount, sqlFirst, sqlRows, TransactionRunner } from '@app/core';
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
});
