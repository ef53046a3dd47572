#!/usr/bin/env node
// Prints the link of the newest account mail in the outbox (DATA_DIR/outbox, where mail goes when
// SMTP_URL is unset), optionally the newest to one address: the .eml files are quoted-printable,
// so the link read from the raw file is broken (`=3D`, soft line breaks).
// Usage: node scripts/mail-link.js [email]
const { readdirSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const outbox = join(resolve(process.env.DATA_DIR || './data'), 'outbox');
const to = process.argv[2]?.toLowerCase();
let files = [];
try {
  files = readdirSync(outbox).filter((name) => name.endsWith('.eml'));
} catch {
  // no mail written yet
}
// File names begin with the time written: the newest sorts last.
for (const name of files.sort().reverse()) {
  const mail = readFileSync(join(outbox, name), 'utf8')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
  const recipient = /^To: (.*)$/m.exec(mail)?.[1] ?? '';
  const link = /https?:\/\/\S+?\?token=[\w%-]+/.exec(mail)?.[0];
  if (!link || (to && !recipient.toLowerCase().includes(to))) continue;
  process.stdout.write(`${/^Subject: (.*)$/m.exec(mail)?.[1]} (to ${recipient}):\n${link}\n`);
  process.exit(0);
}
process.stderr.write(`No mail with a link${to ? ` to ${to}` : ''} in ${outbox}\n`);
process.exit(1);
