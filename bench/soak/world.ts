import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { CreateBucketCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { bucketKeys, cephTestsEnabled, dropBucket, rgwEnv, startGateway } from '../../test/support/ceph';
import { join } from 'node:path';
import { hostAddArgs, provisionArgs } from '../../test/support/hosts';
import { testImageFile } from '../../test/support/test-images';
import { buildTinyGuest, TinyGuest } from '../../test/support/libvirt';
import { nginxSite, NginxSite } from '../../test/support/nginx';
import { domainsOn, emptyOwnLibvirtd, makeDefaultPool, virshOn } from '../../test/support/own-hosts';
import { OwnLibvirtd, startOwnLibvirtd } from '../../test/support/own-libvirtd';
import { PrometheusStack, startPrometheus } from '../../test/support/prometheus';
import { CliResult, runCli } from '../../test/support/run-cli';
import { freePort } from '../../test/support/server-process';
import { TestSmtpServer } from '../../test/support/smtp';
import { systemTmpdir } from '../../test/support/temp-folder';
import { testEnv } from '../../test/support/test-env';
import { WebhookReceiver } from '../../test/support/webhook-receiver';
import { SoakApi } from './api-process';
import { SoakPostgres, SoakRedis } from './daemons';

export const REGION = 'eu-west';
export const IMAGE = 'soak-tiny';
/** The Debian test image (scripts/build-test-image.sh): its VPSes boot Debian, with the guest agent, under the same template. */
export const DEBIAN_IMAGE = 'soak-debian';

export type ReceiverMode = 'ok' | 'error' | 'hang';

/**
 * Everything the soak runs on, on loopback: a PostgreSQL cluster and a Redis of its own, a libvirtd
 * of its own with the busybox guest, Prometheus scraping it, a bucket on the one-node Ceph's RGW for ticket attachments, the SMTP test server, a webhook receiver, two API replicas
 * behind deploy/'s nginx configuration.
 */
export class SoakWorld {
  readonly postgres = new SoakPostgres(5441);
  readonly redis = new SoakRedis();
  readonly smtp = new TestSmtpServer();
  readonly receiver = new WebhookReceiver();
  receiverMode: ReceiverMode = 'ok';
  libvirtd!: OwnLibvirtd;
  prometheus!: PrometheusStack;
  /** The ticket attachments' bucket on scripts/ensure-ceph.sh's RADOS Gateway. */
  attachments!: { s3: S3Client; bucket: string };
  /** The VPS backups' bucket on the same gateway. */
  backupBucket = '';
  tiny!: TinyGuest;
  apis: SoakApi[] = [];
  nginx!: NginxSite;
  private dataDir = '';
  private env: Record<string, string | undefined> = {};

  get baseUrl(): string {
    return `http://127.0.0.1:${this.nginx.http}`;
  }

  /** `debian`: whether the Debian image is added (VPSes the customers' backups freeze and copy as a real system). */
  async start(log: (line: string) => void, debian: boolean): Promise<void> {
    this.dataDir = mkdtempSync(join(systemTmpdir(), 'hosting-soak-'));
    log('PostgreSQL (own cluster on 5441), Redis, SMTP, webhook receiver');
    await this.postgres.start();
    await this.redis.start();
    await this.smtp.start();
    this.receiver.respond = () => (this.receiverMode === 'error' ? 500 : 204);
    await this.receiver.start();
    log(`libvirtd of its own with the busybox guest${debian ? ' (and Debian, when the disk holds it)' : ''}`);
    this.tiny = buildTinyGuest({ disks: true, diskSystem: debian });
    this.libvirtd = await startOwnLibvirtd();
    await makeDefaultPool(this.libvirtd);
    log('Ceph RGW (scripts/ensure-ceph.sh), buckets for ticket attachments and VPS backups');
    const rgw = await this.startRgw();
    log("Prometheus with Debian's libvirt exporter on that libvirtd");
    this.prometheus = await startPrometheus(this.libvirtd.uri());

    const ports = [await freePort(), await freePort()];
    this.nginx = await nginxSite('nginx.conf', ports);
    this.env = testEnv({
      PUBLIC_URL: this.baseUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: this.postgres.url(),
      DB_POOL_SIZE: '10',
      REDIS_URL: this.redis.url,
      SMTP_URL: this.smtp.url,
      DATA_DIR: this.dataDir,
      COMPUTE_PROVIDER: 'libvirt',
      LIBVIRT_URI: this.libvirtd.uri(),
      LIBVIRT_DOMAIN_TEMPLATE: this.tiny.template,
      METRICS_PROMETHEUS_URL: this.prometheus.url,
      BLOB_STORAGE: 's3',
      S3_ENDPOINT: rgw.RGW_ADMIN_URL,
      S3_BUCKET: this.attachments.bucket,
      S3_ACCESS_KEY_ID: rgw.RGW_ADMIN_ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: rgw.RGW_ADMIN_SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      BACKUP_S3_ENDPOINT: rgw.RGW_ADMIN_URL,
      BACKUP_S3_BUCKET: this.backupBucket,
      BACKUP_S3_ACCESS_KEY_ID: rgw.RGW_ADMIN_ACCESS_KEY,
      BACKUP_S3_SECRET_ACCESS_KEY: rgw.RGW_ADMIN_SECRET_KEY,
      // Two kept: a third backup retires the oldest, so deletions (and their orphaned objects) happen too.
      BACKUP_RETENTION: '2',
      COMPUTE_TRANSITION_DELAY_MS: undefined,
      PASSWORD_HASH_COST: '15',
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_RETRY_BASE_SECONDS: '2',
      WEBHOOKS_TIMEOUT_SECONDS: '5',
      MAIL_RETRY_DELAY_SECONDS: '2',
    });
    const migrated = await this.cli('migration:run');
    if (migrated.code !== 0) throw new Error(`migration:run: ${migrated.stderr}`);
    const hostSize = { vcpus: 32, memoryGb: 32, diskGb: 200 };
    await this.mustCli(...hostAddArgs('soak-host', REGION, this.libvirtd.uri(), hostSize, '--vnc-listen', '127.0.0.1'));
    const disk = join(this.libvirtd.dir, 'soak-tiny.qcow2');
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', disk, '64M']);
    await this.mustCli('image:add', '--slug', IMAGE, '--name', 'Tiny (soak)', '--file', disk);
    rmSync(disk);
    if (debian) {
      log('the Debian test image (scripts/build-test-image.sh, cached)');
      await this.mustCli('image:add', '--slug', DEBIAN_IMAGE, '--name', 'Debian 12 (soak)', '--file', testImageFile());
    }

    this.apis = ports.map(
      (port, i) =>
        new SoakApi(`api-${i + 1}`, port, this.env, join(this.dataDir, `heap-api-${i + 1}.json`), join(this.dataDir, `clock-api-${i + 1}`)),
    );
    log('two API replicas behind nginx');
    for (const api of this.apis) await api.start();
    await this.nginx.start();
  }

  /** The gateway as CI leaves it (started again when it is not answering) and a bucket of the run's own. */
  private async startRgw(): Promise<Record<string, string>> {
    if (!cephTestsEnabled()) throw new Error('the soak needs the one-node Ceph of scripts/ensure-ceph.sh: run it first');
    await startGateway();
    const rgw = rgwEnv();
    const s3 = new S3Client({
      endpoint: rgw.RGW_ADMIN_URL,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: rgw.RGW_ADMIN_ACCESS_KEY, secretAccessKey: rgw.RGW_ADMIN_SECRET_KEY },
    });
    const run = Date.now().toString(36);
    this.attachments = { s3, bucket: `soak-attachments-${run}` };
    this.backupBucket = `soak-backups-${run}`;
    await s3.send(new CreateBucketCommand({ Bucket: this.attachments.bucket }));
    await s3.send(new CreateBucketCommand({ Bucket: this.backupBucket }));
    return rgw;
  }

  /** The keys of the objects in the attachments' bucket. */
  attachmentObjects(): Promise<string[]> {
    return bucketKeys(this.attachments.s3, this.attachments.bucket);
  }

  /** The keys of the objects in the backups' bucket, and the multipart uploads begun and not finished there. */
  async backupObjects(): Promise<{ keys: string[]; unfinished: string[] }> {
    const { s3 } = this.attachments;
    const { Uploads = [] } = await s3.send(new ListMultipartUploadsCommand({ Bucket: this.backupBucket }));
    return { keys: await bucketKeys(s3, this.backupBucket), unfinished: Uploads.map((u) => u.Key!) };
  }

  /** One backup of the VPS queued for a replica's worker, as an operator's `backup:run --no-wait` does. */
  queueBackup(serviceId: string): Promise<CliResult> {
    return this.cli('backup:run', '--service', serviceId, '--no-wait');
  }

  private async dropBuckets(): Promise<void> {
    if (!this.attachments) return;
    const { s3 } = this.attachments;
    await dropBucket(s3, this.backupBucket);
    await dropBucket(s3, this.attachments.bucket);
    s3.destroy();
  }

  cli(...args: string[]): Promise<CliResult> {
    return runCli(args, this.env);
  }

  async mustCli(...args: string[]): Promise<CliResult> {
    const result = await this.cli(...args);
    if (result.code !== 0) throw new Error(`${args[0]} exited with ${result.code}: ${result.stderr}`);
    return result;
  }

  /** `count` stopped VPSes of the busybox guest (or running ones of `image`) for the account of `email`: their ids. */
  async provision(email: string, count: number, image = IMAGE): Promise<string[]> {
    const power = image === IMAGE ? ['--power-state', 'stopped'] : [];
    const made = await this.mustCli(...provisionArgs(email, REGION, image, ...power, '--count', String(count)));
    return made.lines.map((line) => line.id as string);
  }

  /** The domains libvirt defines (`--all`), or those `flags` select instead. */
  domains(...flags: string[]): Promise<string[]> {
    return domainsOn(this.libvirtd, ...flags);
  }

  runningDomains(): Promise<string[]> {
    return this.domains('--state-running');
  }

  /** The volumes of VPSes (`svc-`) and images (`img-`) in the pool, by name. */
  async volumes(): Promise<string[]> {
    await virshOn(this.libvirtd, 'pool-refresh', 'default');
    const listed = await virshOn(this.libvirtd, 'vol-list', 'default');
    return listed
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter((name) => name?.startsWith('svc-') || name?.startsWith('img-'))
      .sort();
  }

  async stop(): Promise<void> {
    await this.nginx?.stop().catch(() => undefined);
    for (const api of this.apis) await api.stop().catch(() => undefined);
    if (this.libvirtd) {
      await emptyOwnLibvirtd(this.libvirtd).catch(() => undefined);
      await this.libvirtd.stop().catch(() => undefined);
    }
    await this.prometheus?.stop().catch(() => undefined);
    await this.dropBuckets().catch(() => undefined);
    this.tiny?.remove();
    await this.receiver.stop().catch(() => undefined);
    await this.smtp.stop().catch(() => undefined);
    this.redis.stop();
    this.postgres.drop();
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
