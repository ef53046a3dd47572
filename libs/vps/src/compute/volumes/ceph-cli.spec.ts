import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { CephCli, cephError } from './ceph-cli';

type ExecError = NodeJS.ErrnoException & { killed?: boolean };
const exited = (code: number): ExecError => Object.assign(new Error('Command failed'), { code: code as unknown as string });

describe('cephError', () => {
  it('tells an unreachable cluster (retryable) from a refusal', () => {
    const silent = cephError(
      exited(110),
      "rbd: couldn't connect to the cluster!\nrbd: listing images failed: (110) Connection timed out",
      'rbd',
    );
    expect(silent).toMatchObject({ code: 'volume_backend_unavailable', retryable: true });
    expect(cephError(Object.assign(exited(1), { killed: true }), '', 'rbd')).toMatchObject({ retryable: true });
    expect(cephError(Object.assign(new Error('spawn rbd ENOENT'), { code: 'ENOENT' }), '', 'rbd').message).toContain('ceph-common');
  });

  it('reads the errno rbd states: a missing image or pool, one that exists, one still open, missing caps', () => {
    expect(cephError(exited(2), 'rbd: error opening image vol-b: (2) No such file or directory', 'rbd')).toMatchObject({
      code: 'not_found',
      message: 'The volume does not exist.',
      retryable: false,
    });
    expect(cephError(exited(2), "rbd: error opening pool 'x': (2) No such file or directory", 'rbd').message).toBe(
      'The RBD pool does not exist.',
    );
    expect(cephError(exited(17), 'rbd: create error: (17) File exists', 'rbd').code).toBe('volume_exists');
    expect(cephError(exited(16), 'rbd: error: image still has watchers', 'rbd').code).toBe('volume_in_use');
    expect(cephError(exited(13), 'Error EACCES: access denied', 'ceph').code).toBe('volume_backend_refused');
    expect(cephError(exited(1), '[errno 2] RADOS object not found (error opening pool)', 'ceph').code).toBe('not_found');
    expect(cephError(exited(22), 'rbd: shrinking an image is only allowed with the --allow-shrink flag', 'rbd').code).toBe(
      'volume_backend_error',
    );
  });
});

describe('CephCli', () => {
  it('hands the key over in the environment, never the command line, and keeps it out of log lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ceph-cli-'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const rbd = join(dir, 'rbd');
      // What librados says of a key it cannot decode: the key itself, and here the command line too.
      writeFileSync(rbd, `#!/bin/sh\necho "args: $*; auth: failed to decode key '\${CEPH_ARGS#--key }'" >&2\nexit 22\n`);
      chmodSync(rbd, 0o755);
      const key = 'AQB88AprErxHDBAAVWWxSYlte+vC4yNEpw3slQ==';
      const cli = new CephCli({ cephMonitors: [{ host: '::1', port: 6789 }], cephClientName: 'hosting', cephClientKey: key }, undefined, {
        rbd,
        ceph: rbd,
      });
      await expect(cli.rbd(['ls'])).rejects.toMatchObject({ code: 'volume_backend_error' });
      const line = String(warn.mock.calls[0][0]);
      expect(line).toContain('--mon-host [::1]:6789 --id hosting');
      expect(line).toContain("failed to decode key '***'");
      expect(line).not.toContain(key);
    } finally {
      warn.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks again when the monitor was too busy to hand the tool its command table (nothing was asked yet), twice at most', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ceph-cli-'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const ceph = join(dir, 'ceph');
      const count = join(dir, 'count');
      const limit = join(dir, 'limit');
      // Fails as a busy monitor makes it fail until its run number `limit`, then answers.
      writeFileSync(
        ceph,
        `#!/bin/sh\nn=$(($(cat ${count} 2>/dev/null || echo 0) + 1)); echo $n > ${count}\n` +
          `if [ $n -lt $(cat ${limit}) ]; then echo "Error EPERM: problem getting command descriptions from mon." >&2; exit 1; fi\necho '["volumes"]'\n`,
      );
      chmodSync(ceph, 0o755);
      const cli = new CephCli({ cephMonitors: [{ host: '127.0.0.1', port: 6789 }], cephClientName: 'admin' }, undefined, {
        rbd: ceph,
        ceph,
      });
      writeFileSync(limit, '3');
      expect(await cli.ceph(['osd', 'pool', 'ls'])).toContain('volumes');
      rmSync(count);
      writeFileSync(limit, '9');
      await expect(cli.ceph(['osd', 'pool', 'ls'])).rejects.toMatchObject({ code: 'volume_backend_unavailable', retryable: true });
      expect(Number(readFileSync(count, 'utf8'))).toBe(3);
    } finally {
      warn.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a transfer (stdin, no time limit of ours)', () => {
    let dir: string;
    let warn: jest.SpyInstance;
    const cliWith = (script: string, timeouts = { mountSeconds: 0, opSeconds: 0.2 }) => {
      const rbd = join(dir, 'rbd');
      writeFileSync(rbd, `#!/bin/sh\n${script}\n`);
      chmodSync(rbd, 0o755);
      return new CephCli({ cephMonitors: [{ host: '127.0.0.1', port: 6789 }], cephClientName: 'admin' }, timeouts, { rbd, ceph: rbd });
    };

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'ceph-cli-'));
      warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    });
    afterEach(() => {
      warn.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    });

    it('hands the tool its input on stdin', async () => {
      const got = join(dir, 'got');
      const cli = cliWith(`cat > ${got}`);
      await cli.rbd(['import-diff', '-', 'p/i'], { input: () => Readable.from([Buffer.from('rbd diff v1\n'), Buffer.from('e')]) });
      expect(readFileSync(got, 'utf8')).toBe('rbd diff v1\ne');
    });

    it('kills a command past librados timeouts, but lets a transfer run as long as it moves', async () => {
      const cli = cliWith('sleep 1; echo done');
      await expect(cli.rbd(['info', 'p/i'])).rejects.toMatchObject({ code: 'volume_backend_unavailable' });
      expect(await cli.rbd(['export', 'p/i@s', '/tmp/x'], { transfer: true })).toBe('done\n');
    });

    it("reports the tool's own failure, not the broken pipe, when it stops reading", async () => {
      const cli = cliWith('head -c 1 > /dev/null; echo "rbd: import-diff: (22) Invalid argument" >&2; exit 22');
      const endless = () =>
        Readable.from(
          (function* () {
            for (;;) yield Buffer.alloc(64 * 1024);
          })(),
        );
      await expect(cli.rbd(['import-diff', '-', 'p/i'], { input: endless })).rejects.toMatchObject({ code: 'volume_backend_error' });
      expect(String(warn.mock.calls[0][0])).toContain('(22) Invalid argument');
    });

    it('stops the tool and says the data could not be read when its input fails', async () => {
      const cli = cliWith('cat > /dev/null');
      const broken = () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('rbd diff v1\n');
            throw new Error('EIO reading the disk file');
          })(),
        );
      await expect(cli.rbd(['import-diff', '-', 'p/i'], { input: broken })).rejects.toMatchObject({
        code: 'volume_backend_error',
        message: 'The data for the Ceph cluster could not be read on the API host.',
      });
    });
  });
});
