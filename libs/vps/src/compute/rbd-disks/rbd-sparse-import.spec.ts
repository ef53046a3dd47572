import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { dataExtents } from './qemu-img';
import { qemuImgInstalled } from './qemu-img.fixture';
import { DIFF_RECORD_BYTES, rbdDiffOf } from './rbd-sparse-import';

const MIB = 1024 ** 2;

/** The records of an `rbd diff v1` stream, as `rbd import-diff` reads them. */
function records(diff: Buffer): { tag: string; offset?: number; length?: number; size?: number; data?: Buffer }[] {
  const header = 'rbd diff v1\n';
  expect(diff.subarray(0, header.length).toString()).toBe(header);
  const out: ReturnType<typeof records> = [];
  for (let at = header.length; at < diff.length;) {
    const tag = String.fromCharCode(diff[at++]);
    if (tag === 's') {
      out.push({ tag, size: Number(diff.readBigUInt64LE(at)) });
      at += 8;
    } else if (tag === 'w') {
      const offset = Number(diff.readBigUInt64LE(at));
      const length = Number(diff.readBigUInt64LE(at + 8));
      out.push({ tag, offset, length, data: diff.subarray(at + 16, at + 16 + length) });
      at += 16 + length;
    } else {
      out.push({ tag });
      expect(tag).toBe('e');
      expect(at).toBe(diff.length);
    }
  }
  return out;
}

(qemuImgInstalled ? describe : describe.skip)('rbdDiffOf', () => {
  let dir: string;
  let raw: string;
  const size = 64 * MIB;
  const first = Buffer.alloc(MIB, 'boot sector ');
  const later = Buffer.alloc(DIFF_RECORD_BYTES + MIB, 'later data ');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rbd-diff-'));
    raw = join(dir, 'disk.raw');
    const fd = openSync(raw, 'w');
    writeSync(fd, first, 0, first.length, 0);
    writeSync(fd, later, 0, later.length, 40 * MIB);
    closeSync(fd);
    execFileSync('truncate', ['-s', String(size), raw]);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the file's data and leaves its holes out", async () => {
    expect(await dataExtents(raw)).toEqual([
      { start: 0, length: MIB },
      { start: 40 * MIB, length: later.length },
    ]);
  });

  it('writes the size, then each extent in records no larger than import-diff reads at once, then the end', async () => {
    const diff = await buffer(rbdDiffOf(raw, size, await dataExtents(raw)));
    const got = records(diff);
    expect(got.map(({ tag, offset, length, size: s }) => ({ tag, offset, length, size: s }))).toEqual([
      { tag: 's', size },
      { tag: 'w', offset: 0, length: MIB },
      { tag: 'w', offset: 40 * MIB, length: DIFF_RECORD_BYTES },
      { tag: 'w', offset: 40 * MIB + DIFF_RECORD_BYTES, length: MIB },
      { tag: 'e' },
    ]);
    const file = readFileSync(raw);
    for (const record of got.filter((r) => r.tag === 'w')) {
      expect(record.data!.equals(file.subarray(record.offset!, record.offset! + record.length!))).toBe(true);
    }
    // The holes are not in it: about the data's size, not the disk's.
    expect(diff.length).toBeLessThan(first.length + later.length + 1024);
  });

  it('is an empty diff of the right size for a file that is all hole', async () => {
    const empty = join(dir, 'empty.raw');
    execFileSync('truncate', ['-s', String(8 * MIB), empty]);
    expect(await dataExtents(empty)).toEqual([]);
    expect(records(await buffer(rbdDiffOf(empty, 8 * MIB, [])))).toEqual([{ tag: 's', size: 8 * MIB }, { tag: 'e' }]);
  });
});
