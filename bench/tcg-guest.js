'use strict';
// What the bench's TCG guest scenarios share (volumes.js, moves.js): a command runner, the tools
// they look for, Debian's cloud kernel, the initramfs format, and the API code's logs kept quiet.
const { execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');

/** Runs a command; its error names it and the end of what it said. */
const run = (file, args, timeout = 60_000) =>
  new Promise((resolve, reject) =>
    execFile(file, args, { timeout, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${(stderr || err.message).trim().slice(-500)}`)) : resolve(stdout),
    ),
  );
/** Whether `cmd` is on the PATH. */
function has(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Debian's cloud kernel, as test/support/libvirt.ts kernelGuestFolder finds it. */
function kernel() {
  return (
    fs
      .readdirSync('/boot')
      .filter((name) => /^vmlinuz-.*-cloud-amd64$/.test(name))
      .sort()
      .pop() ?? null
  );
}

/** The "newc" cpio format the kernel unpacks as its initramfs (test/support/libvirt.ts newcArchive). */
function newcArchive(files) {
  const parts = [];
  const pad = (length) => Buffer.alloc((4 - (length % 4)) % 4);
  const entry = (name, mode, data, ino) => {
    const fields = [ino, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, name.length + 1, 0];
    const head = Buffer.concat([
      Buffer.from(`070701${fields.map((n) => n.toString(16).padStart(8, '0')).join('')}`),
      Buffer.from(`${name}\0`),
    ]);
    parts.push(head, pad(head.length), data, pad(data.length));
  };
  files.forEach((file, i) => entry(file.name, file.mode, file.data ?? Buffer.alloc(0), i + 1));
  entry('TRAILER!!!', 0, Buffer.alloc(0), 0);
  return Buffer.concat(parts);
}

/**
 * The API code's log lines stay out of the bench's output (a virsh that fails while it looks is no
 * news); its last 20 warnings and errors are returned, to be told when the scenario fails.
 */
function quietApiLogs() {
  const { Logger } = require('@nestjs/common');
  const said = [];
  const keep = (level) => (message) => said.push(`${level}: ${message}`) > 20 && said.shift();
  Logger.overrideLogger({ log() {}, debug() {}, verbose() {}, warn: keep('warn'), error: keep('error'), fatal: keep('fatal') });
  return said;
}

module.exports = { run, has, kernel, newcArchive, quietApiLogs };
