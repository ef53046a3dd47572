import { Readable } from 'node:stream';
import { partsOf } from './s3-backup-store';

const collect = async (chunks: Buffer[], size: number) => {
  const out: Buffer[] = [];
  for await (const part of partsOf(Readable.from(chunks), size)) out.push(part);
  return out;
};

describe('partsOf', () => {
  it('cuts a stream into parts of the size, the last one shorter, bytes in order', async () => {
    const data = Buffer.from('abcdefghijklmnopqrstuvwxyz');
    const parts = await collect([data.subarray(0, 3), data.subarray(3, 20), data.subarray(20)], 8);
    expect(parts.map((p) => p.length)).toEqual([8, 8, 8, 2]);
    expect(Buffer.concat(parts).equals(data)).toBe(true);
  });

  it('gives no part for an empty stream and one for a stream of exactly one part', async () => {
    expect(await collect([], 4)).toEqual([]);
    expect((await collect([Buffer.from('abcd')], 4)).map(String)).toEqual(['abcd']);
  });
});
