import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostAddArgs, provisionArgs } from '../../test/support/hosts';
import { buildTinyGuest, TinyGuest } from '../../test/support/libvirt';
import { nginxSite, NginxSite } from '../../test/support/nginx';
import { removeDomainWith, Virsh, virshOnUri } from '../../test/support/libvirt-cleanup';
import { OwnLibvirtd, startOwnLibvirtd } from '../../test/support/own-libvirtd';
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

export type ReceiverMode = 'ok' | 'error' | 'hang';

/**
 * Everything the soak runs on, on loopback: a PostgreSQL cluster and a Redis of its own, a libvirtd
 * of its own with the busybox guest, the SMTP test server, a webhook receiver, two API replicas
 * behind deploy/'s nginx configuration.
 */
export class SoakWorld {
  readonly postgres = new SoakPostgres(5441);
  readonly redis = new SoakRedis();
  readonly smtp = new TestSmtpServer();
  readonly receiver = new WebhookReceiver();
  receiverMode: ReceiverMode = 'ok';
  libvirtd!: OwnLibvirtd;
  private virsh!: Virsh;
  tiny!: TinyGuest;
  apis: SoakApi[] = [];
  nginx!: NginxSite;
  private dataDir = '';
  private env: Record<string, string | undefined> = {};

  get baseUrl(): string {
    return `http://127.0.0.1:${this.nginx.http}`;
  }

  async start(log: (line: string) => void): Promise<void> {
    this.dataDir = mkdtempSync(join(systemTmpdir(), 'hosting-soak-'));
    log('PostgreSQL (own cluster on 5441), Redis, SMTP, webhook receiver');
    await this.postgres.start();
    await this.redis.start();
    await this.smtp.start();
    this.receiver.respond = () => (this.receiverMode === 'error' ? 500 : 204);
    await this.receiver.start();
    log('libvirtd of its own with the busybox guest');
    this.tiny = buildTinyGuest();
    this.libvirtd = await startOwnLibvirtd();
    this.virsh = virshOnUri(this.libvirtd.uri(), 120_000);
    await this.virsh('pool-define-as', 'default', 'dir', '--target', join(this.libvirtd.dir, 'data', 'pool'));
    await this.virsh('pool-build', 'default');
    await this.virsh('pool-start', 'default');

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

    this.apis = ports.map((port, i) => new SoakApi(`api-${i + 1}`, port, this.env, join(this.dataDir, `heap-api-${i + 1}.json`)));
    log('two API replicas behind nginx');
    for (const api of this.apis) await api.start();
    await this.nginx.start();
  }

  cli(...args: string[]): Promise<CliResult> {
    return runCli(args, this.env);
  }

  async mustCli(...args: string[]): Promise<CliResult> {
    const result = await this.cli(...args);
    if (result.code !== 0) throw new Error(`${args[0]} exited with ${result.code}: ${result.stderr}`);
    return result;
  }

  /** `count` stopped VPSes of the busybox guest for the account of `email`: their ids. */
  async provision(email: string, count: number): Promise<string[]> {
    const made = await this.mustCli(...provisionArgs(email, REGION, IMAGE, '--power-state', 'stopped', '--count', String(count)));
    return made.lines.map((line) => line.id as string);
  }

  /** The domains libvirt defines (`--all`), or those `flags` select instead. */
  async domains(...flags: string[]): Promise<string[]> {
    const listed = await this.virsh('list', '--name', ...(flags.length ? flags : ['--all']));
    return listed.split('\n').filter(Boolean).sort();
  }

  runningDomains(): Promise<string[]> {
    return this.domains('--state-running');
  }

  /** The volumes of VPSes (`svc-`) and images (`img-`) in the pool, by name. */
  async volumes(): Promise<string[]> {
    await this.virsh('pool-refresh', 'default');
    const listed = await this.virsh('vol-list', 'default');
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
      for (const name of await this.domains().catch(() => []))
        await removeDomainWith(this.virsh, this.libvirtd.uri(), name).catch(() => undefined);
      await this.libvirtd.stop().catch(() => undefined);
    }
    this.tiny?.remove();
    await this.receiver.stop().catch(() => undefined);
    await this.smtp.stop().catch(() => undefined);
    this.redis.stop();
    this.postgres.drop();
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
