import { isAbsolute, join, relative } from 'node:path';
import type { AppConfig } from '@app/core';
import type { DemoStart } from './demo-data.service';

type NoticeConfig = Pick<AppConfig, 'publicUrl' | 'docsEnabled' | 'databaseUrl' | 'dataDir' | 'mail'>;

/**
 * What `npm start` prints last before "listening": the one-time demo credentials on the first
 * start; on a later one, how to get back into the demo account without deleting anything.
 */
export function demoNotice(start: DemoStart, config: NoticeConfig): string | null {
  if (!start) return null;
  const docs = config.docsEnabled ? `${config.publicUrl}/docs` : null;
  if ('created' in start) {
    const { email, password, apiKey } = start.created;
    return block([
      'Demo data created. These credentials are shown only now:',
      `  account:  ${email}`,
      `  password: ${password}`,
      `  API key:  ${apiKey}`,
      ...(docs ? [`  docs:     ${docs}  (Authorize with the API key)`] : []),
      `  hostctl:  HOSTCTL_TOKEN=${apiKey} npx hostctl services list`,
    ]);
  }
  const email = start.existing;
  const body = JSON.stringify({ email });
  return block([
    `Demo data is already here (account ${email}); its password and API key were shown on its first start.`,
    'To get back in:',
    `  a new API key:   npm run cli -- api-key:create --email ${email} --name laptop`,
    ...(config.databaseUrl ? [] : ['                   (stop the server first: the embedded database takes one process at a time)']),
    `  a new password:  curl -X POST ${config.publicUrl}/api/auth/password/forgot -H 'Content-Type: application/json' -d '${body}'`,
    `                   then follow the link in the mail, ${config.mail.smtpUrl ? 'sent through SMTP_URL' : `written to ${shown(join(config.dataDir, 'outbox'))}/`}`,
    ...(docs ? [`  docs:            ${docs}`] : []),
  ]);
}

function block(lines: string[]): string {
  return ['', ...lines, ''].join('\n') + '\n';
}

/** A folder under the working directory as a relative path, as a person typed it. */
function shown(dir: string): string {
  const path = relative(process.cwd(), dir);
  return path && !path.startsWith('..') && !isAbsolute(path) ? path : dir;
}
