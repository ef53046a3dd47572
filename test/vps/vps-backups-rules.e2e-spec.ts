import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { BackupRunner } from '../../libs/vps/src/backups/backup-runner';
import { ImageStore } from '../../libs/vps/src/compute/image-store';
import { createAccount, TestAccount } from '../factories/accounts';
import { createImage } from '../factories/images';
import { createService } from '../factories/services';
import { runCliIn } from '../support/run-cli-in-app';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * The state rules and file modes of backups: a backup becomes an image only of an active
 * VPS, as restore, snapshot and enable require; the local store and the backup-to-image temporary
 * file are the API's user's alone.
 */
describe('VPS backups: state rules and local file modes (simulator, local store)', () => {
  let t: TestApp;
  let owner: TestAccount;
  let system: { id: string; slug: string };

  beforeAll(async () => {
    t = await startTestApp({ SNAPSHOTS_PER_ACCOUNT: '10' });
    owner = await createAccount(t);
    system = await createImage(t, { gib: 2 });
  });
  afterAll(() => t.close());

  const base = (id: string) => `/api/services/${id}/instance/backups`;
  const backUp = async (id: string) => ((await t.app.get(BackupRunner).run(id, 'operator')) as { backupId: string }).backupId;
  const toImage = (id: string, backupId: string) =>
    request(t.http)
      .post(`${base(id)}/${backupId}/image`)
      .set('Authorization', owner.bearer)
      .send({ name: 'from backup' });
  const setStatus = async (id: string, status: string) =>
    expect((await runCliIn(t.app, ['service:set-status', '--id', id, '--status', status])).code).toBe(0);
  const snapshotCount = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM images WHERE account_id = $1`, [owner.id]))[0].n as number;

  it.each(['suspended', 'terminated'])(
    'a backup of a %s VPS does not become an image: 409 invalid_state, nothing reserved',
    async (status) => {
      const { id } = await createService(t, owner.id, { image: system.slug });
      const backupId = await backUp(id);
      await setStatus(id, status);
      const before = await snapshotCount();
      const restore = await request(t.http)
        .post(`${base(id)}/${backupId}/restore`)
        .set('Authorization', owner.bearer)
        .expect(409);
      const res = await toImage(id, backupId).expect(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        status: 409,
        code: 'invalid_state',
        detail: `The service is ${status}; an image from a backup needs an active service.`,
      });
      expect(restore.body.code).toBe('invalid_state');
      expect(await snapshotCount()).toBe(before);
      const logged = await t.db.query(`SELECT 1 FROM activity_events WHERE action = 'instance.backup_image' AND entity_id = $1`, [id]);
      expect(logged).toEqual([]);
    },
  );

  it('writes the local store 0700/0600, directories along the way too, and corrects an existing folder', async () => {
    const { id } = await createService(t, owner.id, { image: system.slug });
    const root = t.config.backups.localDir;
    // A folder an earlier version made with the default modes.
    mkdirSync(join(root, 'vps', id), { recursive: true, mode: 0o755 });
    chmodSync(join(root, 'vps'), 0o755);
    chmodSync(join(root, 'vps', id), 0o755);
    const backupId = await backUp(id);
    expect(modeOf(join(root, 'vps'))).toBe(0o700);
    expect(modeOf(join(root, 'vps', id))).toBe(0o700);
    expect(modeOf(join(root, 'vps', id, `${backupId}.qcow2`))).toBe(0o600);

    const { id: other } = await createService(t, owner.id, { image: system.slug });
    const second = await backUp(other);
    expect(modeOf(join(root, 'vps', other))).toBe(0o700);
    expect(modeOf(join(root, 'vps', other, `${second}.qcow2`))).toBe(0o600);
  });

  it('the backup-to-image temporary file is 0600 in a 0700 DATA_DIR/tmp, and it is gone afterwards', async () => {
    const { id } = await createService(t, owner.id, { image: system.slug });
    const backupId = await backUp(id);
    const tmp = join(t.config.dataDir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    chmodSync(tmp, 0o755);
    const store = t.app.get(ImageStore);
    const seen: { file: number; dir: number }[] = [];
    const upload = jest.spyOn(store, 'upload').mockImplementation(async (_imageId, file) => {
      seen.push({ file: modeOf(file), dir: modeOf(tmp) });
      return [];
    });
    try {
      const res = await toImage(id, backupId).expect(202);
      await waitFor(
        async () => (await t.get(`/api/images/${res.body.id}`, owner.bearer).expect(200)).body.status as string,
        (status) => status !== 'creating',
        20_000,
      );
    } finally {
      upload.mockRestore();
    }
    expect(seen).toEqual([{ file: 0o600, dir: 0o700 }]);
    expect(modeOf(tmp)).toBe(0o700);
  });
});
