import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComputeProviderError } from '../compute-provider';
import { convertDisk } from './qemu-img';
import { qemuImgInstalled } from './qemu-img.fixture';

const failure = { code: 'backup_failed', message: 'The backup could not be written.' };
const from = { file: '/nonexistent/a.raw', format: 'raw' };
const to = { file: '/nonexistent/a.qcow2', format: 'qcow2' as const };

describe('convertDisk', () => {
  let dir: string;
  const fakeQemuImg = (body: string): string => {
    const file = join(dir, 'qemu-img');
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qemu-img-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('asks qemu-img for its progress and lets a conversion that keeps moving outlast the stall limit', async () => {
    const qemuImg = fakeQemuImg(`echo "$@" > ${dir}/args; for i in $(seq 16); do printf '    (%d.00/100%%)\\r' $i; sleep 0.25; done`);
    await expect(convertDisk(from, to, failure, qemuImg, 2500)).resolves.toBeUndefined();
    expect(readFileSync(join(dir, 'args'), 'utf8').trim()).toBe('convert -p -f raw -O qcow2 -S 4k /nonexistent/a.raw /nonexistent/a.qcow2');
  }, 30_000);

  it('kills a conversion that reports nothing for the stall limit and answers the failure, the reason for operators', async () => {
    const qemuImg = fakeQemuImg(`printf '    (0.00/100%%)\\r'; exec sleep 60`);
    const error = await convertDisk(from, to, failure, qemuImg, 500).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ComputeProviderError);
    expect(error).toMatchObject({ code: 'backup_failed', message: failure.message, retryable: false });
    expect((error as ComputeProviderError).operatorDetail).toBe('qemu-img convert killed: no progress for 0.5 s');
  });

  it("answers the failure with qemu-img's own words when it cannot read the file", async () => {
    const qemuImg = fakeQemuImg(`echo "qemu-img: Could not open '/nonexistent/a.raw': No such file or directory" >&2; exit 1`);
    await expect(convertDisk(from, to, failure, qemuImg)).rejects.toMatchObject({
      code: 'backup_failed',
      operatorDetail: "qemu-img: Could not open '/nonexistent/a.raw': No such file or directory",
    });
  });

  it('says qemu-img is needed when it is not installed', async () => {
    await expect(convertDisk(from, to, failure, join(dir, 'missing-qemu-img'))).rejects.toMatchObject({
      code: 'image_tool_missing',
      message: 'qemu-img (Debian qemu-utils) is needed on the API host for disks on Ceph.',
    });
  });

  (qemuImgInstalled ? it : it.skip)('converts a real raw file to qcow2 with the real qemu-img, the same data, holes kept', async () => {
    const raw = join(dir, 'disk.raw');
    const fd = openSync(raw, 'w');
    writeSync(fd, Buffer.alloc(1024 * 1024, 7), 0, 1024 * 1024, 32 * 1024 * 1024);
    closeSync(fd);
    execFileSync('truncate', ['-s', '256M', raw]);
    const qcow2 = join(dir, 'disk.qcow2');
    await convertDisk({ file: raw, format: 'raw' }, { file: qcow2, format: 'qcow2' }, failure);
    expect(() => execFileSync('qemu-img', ['compare', '-f', 'raw', '-F', 'qcow2', raw, qcow2])).not.toThrow();
    const info = JSON.parse(execFileSync('qemu-img', ['info', '--output=json', qcow2], { encoding: 'utf8' })) as {
      'virtual-size': number;
      'actual-size': number;
    };
    expect(info['virtual-size']).toBe(256 * 1024 * 1024);
    expect(info['actual-size']).toBeLessThan(8 * 1024 * 1024);
  });
});
