#!/usr/bin/env node
// Prints the link of the newest account mail in the outbox (DATA_DIR/outbox, where mail goes when
// SMTP_URL is unset), optionally the newest to one address: the .eml files are quoted-printable,
// so the link read from the raw file is broken (`=3D`, soft line breaks).
// The server writes a mail a moment after the request that causes it (a queued job), so when there
// is none yet this waits for one, up to --wait seconds (default 30; 0 looks once).
// --new ignores mail already there (a second reset request retires the first mail's link).
// Usage: node scripts/mail-link.js [email] [--wait SECONDS] [--new]
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');

const USAGE = 'Usage: node scripts/mail-link.js [email] [--wait SECONDS] [--new]';
const POLL_MS = 200;

function parseArguments(argv) {
  let to;
  let waitSeconds = 30;
  let onlyNew = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--wait') {
      waitSeconds = Number(argv[++i]);
      if (!Number.isFinite(waitSeconds) || waitSeconds < 0) fail(`--wait takes a number of seconds, 0 or more\n${USAGE}`, 2);
    } else if (argv[i] === '--new') onlyNew = true;
    else if (argv[i].startsWith('-')) fail(`Unknown option ${argv[i]}\n${USAGE}`, 2);
    else if (to === undefined) to = argv[i].toLowerCase();
    else fail(USAGE, 2);
  }
  return { to, waitSeconds, onlyNew };
}

function fail(message, code) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function decodeQuotedPrintable(raw) {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

/** The newest mail with a link (to `to`, when given; written at or after `since`), or undefined. */
function newestLink(outbox, to, since) {
  let files = [];
  try {
    files = readdirSync(outbox).filter((name) => name.endsWith('.eml') && statSync(join(outbox, name)).mtimeMs >= since);
  } catch {
    // no mail written yet
  }
  // File names begin with the time written: the newest sorts last.
  for (const name of files.sort().reverse()) {
    const mail = decodeQuotedPrintable(readFileSync(join(outbox, name), 'utf8'));
    const recipient = /^To: (.*)$/m.exec(mail)?.[1] ?? '';
    const link = /https?:\/\/\S+?\?token=[\w%-]+/.exec(mail)?.[0];
    if (link && (!to || recipient.toLowerCase().includes(to))) return { subject: /^Subject: (.*)$/m.exec(mail)?.[1], recipient, link };
  }
  return undefined;
}

async function main() {
  const { to, waitSeconds, onlyNew } = parseArguments(process.argv.slice(2));
  // The file system's clock ticks coarser than Date.now(): a little slack keeps a mail written just after.
  const since = onlyNew ? Date.now() - 100 : 0;
  const outbox = join(resolve(process.env.DATA_DIR || './data'), 'outbox');
  const deadline = Date.now() + waitSeconds * 1000;
  let found = newestLink(outbox, to, since);
  if (!found && waitSeconds > 0) {
    process.stderr.write(
      `Waiting up to ${waitSeconds} s for a ${onlyNew ? 'new ' : ''}mail with a link${to ? ` to ${to}` : ''} in ${outbox}...\n`,
    );
    while (!found && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, POLL_MS));
      found = newestLink(outbox, to, since);
    }
  }
  if (!found) {
    fail(
      `No mail with a link${to ? ` to ${to}` : ''} in ${outbox}${waitSeconds > 0 ? ` after ${waitSeconds} s` : ''}. ` +
        'Mail is written there only while SMTP_URL is unset, by a server with the same DATA_DIR; the server log names each file written.',
      1,
    );
  }
  process.stdout.write(`${found.subject} (to ${found.recipient}):\n${found.link}\n`);
}

void main();
