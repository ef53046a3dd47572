import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ComputeProviderError } from '../compute-provider';
import { standInVirsh } from './stand-in-virsh.fixture';
import { VirshFifo } from './virsh-fifo';

/**
 * A stand-in virsh on PATH: `-c <dir>` names a directory that says what to do. vol-download writes
 * `<dir>/bytes` bytes of a pattern to its `--file`, then prints `<dir>/error` to standard error and
 * exits 1 if that file exists.
 */
const FAKE_VIRSH = `#!/bin/sh
dir="$3"; cmd="$4"
for arg; do file="$arg"; done
case "$cmd" in
  vol-download) head -c "$(cat "$dir/bytes")" "$dir/pattern" > "$file" ;;
esac
if [ -f "$dir/error" ]; then cat "$dir/error" >&2; exit 1; fi
exit 0
`;

describe('VirshFifo (virsh on a named pipe)', () => {
  standInVirsh(FAKE_VIRSH);
  let dir: string;
  const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
  const pattern = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < pattern.length; i += 4) pattern.writeUInt32LE((i * 2654435761) >>> 0, i);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fake-virsh-run-'));
    writeFileSync(join(dir, 'pattern'), pattern);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const read = async (stream: Readable) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it("gives virsh's output whole, once per call, and leaves no pipe behind", async () => {
    const fifo = await VirshFifo.make();
    for (const bytes of [pattern.length, 3 * 1024 * 1024 + 17, 0]) {
      writeFileSync(join(dir, 'bytes'), String(bytes));
      const out = await read(fifo.output(dir, ['vol-download', '--pool', 'p', '--vol', 'v']));
      expect(out.length).toBe(bytes);
      expect(sha(out)).toBe(sha(pattern.subarray(0, bytes)));
    }
    const made = (fifo as unknown as { dir: string }).dir;
    await fifo.remove();
    expect(existsSync(made)).toBe(false);
  });

  it('fails the stream when virsh fails, even after it wrote', async () => {
    writeFileSync(join(dir, 'bytes'), String(1024 * 1024));
    writeFileSync(join(dir, 'error'), 'error: Storage volume not found');
    const fifo = await VirshFifo.make();
    try {
      const err = await read(fifo.output(dir, ['vol-download'])).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ComputeProviderError);
      // virsh's words are for operators; the message is the one customers may see.
      expect(err).toMatchObject({ code: 'not_found', operatorDetail: expect.stringContaining('Storage volume not found') });
      expect((err as Error).message).not.toContain('Storage volume not found');
    } finally {
      await fifo.remove();
    }
  });
});
