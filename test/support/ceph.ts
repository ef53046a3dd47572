import {
  AbortMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RgwClient } from '../../libs/object-storage/src/rgw/rgw-admin-client';
import { waitForOrFail } from './wait-for';

/** Where scripts/ensure-ceph.sh keeps the one-node cluster and the admin user's keys. */
export const CEPH_DIR = process.env.CEPH_DIR ?? '/var/lib/hosting-ceph';
const ADMIN_ENV = join(CEPH_DIR, 'admin.env');
const ENSURE = join(__dirname, '../../scripts/ensure-ceph.sh');

/**
 * The RGW suite runs where scripts/ensure-ceph.sh has made the gateway, and always in CI (`CI`
 * set), where a missing gateway is a failure rather than a skip (`.ci/run` runs the script).
 */
export function cephTestsEnabled(): boolean {
  if (existsSync(ADMIN_ENV) || process.env.CI) return true;
  process.stderr.write(
    `Skipping Ceph RGW tests: ${ADMIN_ENV} is missing (run scripts/ensure-ceph.sh). In CI (CI set) they run and fail instead.\n`,
  );
  return false;
}

/** OBJECT_STORAGE_PROVIDER=rgw and the admin keys, as the script wrote them. */
export function rgwEnv(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(ADMIN_ENV, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('export '))
      .map((line) => {
        const [name, ...value] = line.slice('export '.length).split('=');
        return [name, value.join('=')];
      }),
  );
}

/** The gateway as an operator sees it, through the Admin Ops API. */
export function adminGateway() {
  const env = rgwEnv();
  const client = new RgwClient(env.RGW_ADMIN_URL, 'default', 10_000);
  const key = { accessKeyId: env.RGW_ADMIN_ACCESS_KEY, secretAccessKey: env.RGW_ADMIN_SECRET_KEY };
  return {
    secret: env.RGW_ADMIN_SECRET_KEY,
    async user(
      uid: string,
    ): Promise<{ suspended: number; keys: { access_key: string }[]; user_quota: { max_size: number; max_objects: number } } | null> {
      return client.admin<never>(key, { method: 'GET', path: '/admin/user', query: { uid } }).catch((err: { status?: number }) => {
        if (err.status === 404) return null;
        throw err;
      });
    },
  };
}

/**
 * What radosgw has written to its log file (`log file` in the script's ceph.conf): at the default
 * debug_rgw level (1) a line per request, with its method and URI, like an HTTP access log.
 */
export function gatewayLog(): string {
  const conf = readFileSync(join(CEPH_DIR, 'ceph.conf'), 'utf8');
  const file = /^\s*log[ _]file\s*=\s*(\S+)/m.exec(conf)?.[1] ?? join(CEPH_DIR, 'log', '$name.log');
  return readFileSync(file.replace('$name', 'client.rgw.a'), 'utf8');
}

function pidOfGateway(): number | null {
  const file = join(CEPH_DIR, 'run', 'client.rgw.a.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
}

async function answers(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
}

/** Stops radosgw (the process the script started, by its pid file) and waits until nothing answers. */
export async function stopGateway(): Promise<void> {
  const pid = pidOfGateway();
  if (pid) process.kill(pid, 'SIGTERM');
  const url = rgwEnv().RGW_ADMIN_URL;
  await waitForOrFail(
    () => answers(url),
    (up) => !up,
    30_000,
    () => 'radosgw kept answering after SIGTERM',
  );
}

/**
 * Sends radosgw a signal by its pid file: SIGSTOP for a gateway that hangs (connections accepted by
 * the kernel, never answered), SIGCONT to let it go on, SIGKILL for one that dies mid-request.
 */
export function signalGateway(signal: NodeJS.Signals): void {
  const pid = pidOfGateway();
  if (!pid) throw new Error("radosgw has no pid file: is scripts/ensure-ceph.sh's gateway running?");
  process.kill(pid, signal);
}

/** Starts it again the way CI does (the script starts only what is not running). */
export function startGateway(): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('bash', [ENSURE], { timeout: 120_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`ensure-ceph.sh: ${stderr}`)) : resolve(),
    ),
  );
}

/** The monitor of scripts/ensure-ceph.sh's cluster (`mon host = v1:127.0.0.1:6789` in its ceph.conf), as CEPH_MON_HOST takes it. */
export function cephMonHost(): string {
  const conf = readFileSync(join(CEPH_DIR, 'ceph.conf'), 'utf8');
  const host = /^\s*mon[ _]host\s*=\s*(?:v[12]:)?(\S+)/m.exec(conf)?.[1];
  if (!host) throw new Error(`No mon host in ${CEPH_DIR}/ceph.conf`);
  return host;
}

/**
 * `ceph` or `rbd` as an operator on this machine runs them, with the cluster's own ceph.conf (cephx
 * is off there); a monitor too busy to hand the tool its command table (nothing asked yet) is asked again.
 */
export async function cephTool(tool: 'ceph' | 'rbd', ...args: string[]): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await cephToolOnce(tool, args);
    } catch (err) {
      if (!/problem getting command descriptions/i.test((err as Error).message) || attempt === 3) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
}

function cephToolOnce(tool: 'ceph' | 'rbd', args: string[]): Promise<string> {
  const conf = join(CEPH_DIR, 'ceph.conf');
  return new Promise((resolve, reject) =>
    execFile(tool, ['-c', conf, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${tool} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

/** Every key in a bucket, page by page. */
export async function bucketKeys(s3: S3Client, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** A test's bucket emptied (its multipart uploads left open aborted) and removed (a bucket already gone is no error). */
export async function dropBucket(s3: S3Client, bucket: string): Promise<void> {
  const { Uploads = [] } = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket })).catch(() => ({ Uploads: [] }));
  for (const u of Uploads) await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key, UploadId: u.UploadId }));
  const keys = await bucketKeys(s3, bucket).catch(() => []);
  for (const key of keys) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
}
