import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboxMailer } from './outbox-mailer';

describe('OutboxMailer', () => {
  it('writes each message as an .eml file with text and HTML parts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    try {
      const mailer = new OutboxMailer(join(dir, 'outbox'), 'Hosting <no-reply@hosting.test>');
      await mailer.send({ to: 'ada@example.test', subject: 'Reset your password', text: 'plain body', html: '<p>html body</p>' });
      await mailer.send({ to: 'bob@example.test', subject: 'Second', text: 'two', html: '<p>two</p>' });
      const files = readdirSync(join(dir, 'outbox'));
      expect(files).toHaveLength(2);
      expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
      const eml = files.map((f) => readFileSync(join(dir, 'outbox', f), 'utf8')).find((text) => text.includes('ada@example.test'))!;
      expect(eml).toMatch(/^From: Hosting <no-reply@hosting\.test>$/m);
      expect(eml).toMatch(/^Subject: Reset your password$/m);
      expect(eml).toContain('text/plain');
      expect(eml).toContain('text/html');
      expect(eml).toContain('plain body');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
