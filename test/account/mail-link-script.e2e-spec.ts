import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OutboxMailer } from '../../libs/core/src/mail/outbox-mailer';

const MAIL_LINK = join(__dirname, '../../scripts/mail-link.js');

/**
 * The README's `node scripts/mail-link.js <email>` right after `forgot` found no mail: the server
 * writes it a moment later, from a queued job. The script waits for it.
 */
describe('scripts/mail-link.js', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'mail-link-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const mailer = () => new OutboxMailer(join(dataDir, 'outbox'), 'Hosting <no-reply@hosting.test>');
  const resetMail = (to: string, token = 'a'.repeat(60)) => ({
    to,
    subject: 'Reset your password',
    text: `Open http://127.0.0.1:3000/account/reset-password?token=hpr_${token} to choose one.`,
    html: '<p>reset</p>',
  });

  /** Runs the script; once it says it is waiting, `whileWaiting` writes mail. */
  async function runWhileWriting(args: string[], whileWaiting: () => Promise<void>) {
    const child = spawn(process.execPath, [MAIL_LINK, ...args], { env: { ...process.env, DATA_DIR: dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const waiting = new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('Waiting')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await Promise.race([waiting, exited]);
    await whileWaiting();
    return { code: await exited, stdout, stderr };
  }

  it('waits for a mail written after it started and prints its link', async () => {
    const run = await runWhileWriting(['ada@example.test'], async () => {
      await mailer().send(resetMail('bob@example.test'));
      await mailer().send(resetMail('ada@example.test'));
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Waiting up to 30 s for a mail with a link to ada@example\.test in .*outbox\.\.\.$/m);
    expect(run.stdout).toBe(
      `Reset your password (to ada@example.test):\nhttp://127.0.0.1:3000/account/reset-password?token=hpr_${'a'.repeat(60)}\n`,
    );
  });

  it('with --new skips a mail already there and waits for the next', async () => {
    await mailer().send(resetMail('ada@example.test', 'old'));
    const minuteAgo = new Date(Date.now() - 60_000);
    for (const name of readdirSync(join(dataDir, 'outbox'))) utimesSync(join(dataDir, 'outbox', name), minuteAgo, minuteAgo);
    const run = await runWhileWriting(['ada@example.test', '--new'], () => mailer().send(resetMail('ada@example.test', 'new')));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Waiting up to 30 s for a new mail with a link to ada@example.test');
    expect(run.stdout).toMatch(/\?token=hpr_new/);
  });

  it('prints a mail already there at once', async () => {
    await mailer().send(resetMail('ada@example.test'));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIL_LINK], { env: { ...process.env, DATA_DIR: dataDir } });
    expect(stdout).toContain('Reset your password (to ada@example.test):\nhttp://127.0.0.1:3000/');
    expect(stderr).toBe('');
  });

  it('gives up after --wait seconds with exit 1 and says where it looked and why none may be there', async () => {
    const failure = await promisify(execFile)(process.execPath, [MAIL_LINK, 'ada@example.test', '--wait', '1'], {
      env: { ...process.env, DATA_DIR: dataDir },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toContain(`No mail with a link to ada@example.test in ${join(dataDir, 'outbox')} after 1 s.`);
    expect(stderr).toContain('SMTP_URL');
  });

  it('refuses an unknown option or a bad --wait with exit 2 and the usage', async () => {
    for (const args of [
      ['--wiat', '3'],
      ['--wait', 'soon'],
    ]) {
      const failure = await promisify(execFile)(process.execPath, [MAIL_LINK, ...args], {
        env: { ...process.env, DATA_DIR: dataDir },
      }).catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: node scripts/mail-link.js') });
    }
  });
});
