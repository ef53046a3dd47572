import { DataSource } from 'typeorm';
import { EmbeddedDatabaseDeadlock, inTransaction, sqlFirst, sqlRows, TransactionRunner } from '@app/core';
import { startTestModule, TestModule } from '../support/test-module';
import { TEST_DATABASE_URL } from '../support/test-env';

/**
 * The embedded database has one connection: a statement started outside a transaction while that
 * transaction's work runs would wait for the connection forever, and every request behind it.
 */
describe('A statement outside an open transaction', () => {
  let m: TestModule;
  let db: DataSource;
  let tx: TransactionRunner;
  beforeAll(async () => {
    m = await startTestModule([]);
    db = m.get(DataSource);
    tx = m.get(TransactionRunner);
  });
  afterAll(() => m.close());

  function readOutside(): Promise<unknown> {
    return sqlRows(db, 'SELECT 1 AS one');
  }

  (TEST_DATABASE_URL ? it.skip : it)(
    'fails at once on the embedded database, naming where the transaction began and where the statement began',
    async () => {
      const failure = await tx
        .run(async (manager) => {
          await sqlFirst(manager, 'SELECT 1 AS one');
          await readOutside();
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(failure).toBeInstanceOf(EmbeddedDatabaseDeadlock);
      const message = (failure as Error).message;
      const [opened, started] = message.split('Statement started at:');
      expect(opened).toMatch(/Transaction opened at:\n\s+at .*embedded-deadlock\.spec\.ts/);

      expect(started).toMatch(/at readOutside .*embedded-deadlock\.spec\.ts/);
      // The connection is free again: the API goes on.
      expect(await sqlFirst(db, 'SELECT 2 AS two')).toEqual({ two: 2 });
    },
  );

  (TEST_DATABASE_URL ? it.skip : it)(
    'fails for a transaction opened inside another one, as it would wait for the same connection',
    async () => {
      const failure = await inTransaction(db, () => inTransaction(db, async () => 'inner')).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(EmbeddedDatabaseDeadlock);
    },
  );

  it('runs statements started after the transaction, and work the transaction left running once it ended', async () => {
    let later: Promise<unknown> | undefined;
    await tx.run(async (manager) => {
      await sqlFirst(manager, 'SELECT 1 AS one');
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(readOutside);
    });
    expect(await readOutside()).toEqual([{ one: 1 }]);
    expect(await later).toEqual([{ one: 1 }]);
  });
});
