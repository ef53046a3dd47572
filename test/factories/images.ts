import { randomUUID } from 'node:crypto';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import sshpk from 'sshpk';
import { ImagesService } from '../../libs/vps/src/images/images.service';
import { TestApp } from '../support/test-app';

/** The first bytes of a qcow2 file describing a disk of `gib` GiB: what image:add reads. */
export function qcow2Header(gib: number): Buffer {
  const header = Buffer.alloc(512);
  header.writeUInt32BE(0x514649fb, 0);
  header.writeUInt32BE(3, 4);
  header.writeBigUInt64BE(BigInt(gib) * 1024n ** 3n, 24);
  return header;
}

/** An available image, added as the operator's image:add does (the simulator keeps it as a row). */
export async function createImage(
  t: TestApp,
  options: { gib?: number; minDiskGb?: number; rescue?: boolean } = {},
): Promise<{ id: string; slug: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'image-'));
  try {
    const file = join(dir, 'disk.qcow2');
    writeFileSync(file, qcow2Header(options.gib ?? 2));
    const slug = `test-${randomUUID().slice(0, 8)}`;
    const image = await t.app
      .get(ImagesService)
      .add({ slug, name: `Test ${slug}`, osFamily: 'debian', osVersion: '12', file, minDiskGb: options.minDiskGb, rescue: options.rescue });
    return { id: image.id, slug };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new ed25519 key pair: the OpenSSH public line and the private key in OpenSSH format. */
export function sshKeyPair(comment = 'test'): { publicKey: string; privateKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const parsed = sshpk.parsePrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'pem');
  parsed.comment = comment;
  return { publicKey: parsed.toPublic().toString('ssh'), privateKey: parsed.toString('ssh-private') };
}

/** An SSH key of the account, uploaded through the API as a customer does; returns its id. */
export async function uploadSshKey(t: TestApp, bearer: string, publicKey = sshKeyPair().publicKey): Promise<string> {
  const res = await request(t.http)
    .post('/api/ssh-keys')
    .set('Authorization', bearer)
    .send({ name: `key-${randomUUID().slice(0, 6)}`, publicKey })
    .expect(201);
  return res.body.id as string;
}
