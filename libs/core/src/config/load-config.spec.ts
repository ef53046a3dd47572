import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const secrets = {
  JWT_SECRET: 'j'.repeat(32),
  SIGNING_SECRET: 's'.repeat(32),
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('loadConfig', () => {
  const dataDir = () => mkdtempSync(join(tmpdir(), 'cfg-'));

  it('applies the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      logLevel: 'info',
      demoData: true,
      docsEnabled: true,
      blobStorage: 'local',
      rateLimit: { perMinute: 600, ticketCreatePerMinute: 2 },
      notificationsHeartbeatMs: 15_000,
      passwordHashCost: 15,
    });
    expect(config.encryptionKey).toHaveLength(32);
  });

  it('takes DASHBOARD_URL as an http(s) base address without a trailing slash, and refuses anything else', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).dashboardUrl).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'https://my.hosting.example/app/' }).dashboardUrl).toBe(
      'https://my.hosting.example/app',
    );
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'javascript:alert(1)' })).toEqual([
      'DASHBOARD_URL must be a URL (http: or https:)',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'my.hosting.example' })).toEqual([
      'DASHBOARD_URL must be a URL (http: or https:)',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, DASHBOARD_URL: 'https://my.hosting.example/?a=1' })).toEqual([
      'DASHBOARD_URL must be the base address of the dashboard, without a query or fragment (the links add /reset-password?token=...)',
    ]);
  });

  it('refuses a heartbeat interval that is not a whole number of at least 10 ms', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '5' })).toEqual([
      `NOTIFICATIONS_HEARTBEAT_MS must be a whole number from 10 to ${Number.MAX_SAFE_INTEGER} (got "5")`,
    ]);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, NOTIFICATIONS_HEARTBEAT_MS: '250' }).notificationsHeartbeatMs).toBe(250);
  });

  it('limits consoles to 5 per account and 4 hours by default, and refuses limits below 1', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets })).toMatchObject({ consoleMaxPerAccount: 5, consoleMaxSeconds: 14_400 });
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, CONSOLE_MAX_PER_ACCOUNT: '2', CONSOLE_MAX_SECONDS: '60' })).toMatchObject({
      consoleMaxPerAccount: 2,
      consoleMaxSeconds: 60,
    });
    expect(problems({ DATA_DIR: dataDir(), ...secrets, CONSOLE_MAX_PER_ACCOUNT: '0', CONSOLE_MAX_SECONDS: '-1' })).toEqual([
      'CONSOLE_MAX_PER_ACCOUNT must be a whole number from 1 to 1000 (got "0")',
      'CONSOLE_MAX_SECONDS must be a whole number from 1 to 604800 (got "-1")',
    ]);
  });

  it('keeps activity entries 90 days by default, and refuses a retention outside 1..3650 days', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).eventsRetentionDays).toBe(90);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, EVENTS_RETENTION_DAYS: '7' }).eventsRetentionDays).toBe(7);
    for (const bad of ['0', '3651', '1.5', 'forever']) {
      expect(problems({ DATA_DIR: dataDir(), ...secrets, EVENTS_RETENTION_DAYS: bad })).toEqual([
        `EVENTS_RETENTION_DAYS must be a whole number from 1 to 3650 (got "${bad}")`,
      ]);
    }
  });

  it('defaults to the simulator and reads the libvirt settings', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets })).toMatchObject({
      computeProvider: 'simulator',
      computeStopTimeoutSeconds: 60,
      libvirt: { uri: 'qemu:///system', regionUris: {}, vncListen: '127.0.0.1', domainTemplate: undefined },
    });
    const config = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      COMPUTE_PROVIDER: 'libvirt',
      LIBVIRT_REGION_URIS: 'eu-central=qemu+ssh://root@kvm1.eu-central/system, us-east = qemu+tls://kvm2/system',
      LIBVIRT_VNC_LISTEN: '10.0.0.5',
      LIBVIRT_DEPLOYMENT_ID: 'staging-eu.2',
      COMPUTE_STOP_TIMEOUT_SECONDS: '3',
    });
    expect(config).toMatchObject({
      computeProvider: 'libvirt',
      computeStopTimeoutSeconds: 3,
      libvirt: { vncListen: '10.0.0.5', deploymentId: 'staging-eu.2' },
    });
    expect(config.libvirt.regionUris).toEqual({
      'eu-central': 'qemu+ssh://root@kvm1.eu-central/system',
      'us-east': 'qemu+tls://kvm2/system',
    });
  });

  it('refuses unusable compute settings, naming each variable', () => {
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      COMPUTE_PROVIDER: 'proxmox',
      LIBVIRT_URI: 'not a uri',
      LIBVIRT_REGION_URIS: 'eu-central',
      LIBVIRT_VNC_LISTEN: 'vnc.example',
      LIBVIRT_DOMAIN_TEMPLATE: '/nonexistent/domain.xml',
      LIBVIRT_DEPLOYMENT_ID: 'staging <1>',
      COMPUTE_STOP_TIMEOUT_SECONDS: '0',
    });
    for (const name of [
      'COMPUTE_PROVIDER',
      'LIBVIRT_URI',
      'LIBVIRT_REGION_URIS',
      'LIBVIRT_VNC_LISTEN',
      'LIBVIRT_DOMAIN_TEMPLATE',
      'LIBVIRT_DEPLOYMENT_ID',
      'COMPUTE_STOP_TIMEOUT_SECONDS',
    ]) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it('reads the network settings: user mode by default, bridge pools with gateways', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).network).toMatchObject({
      mode: 'user',
      sshListen: '127.0.0.1',
      sshPorts: { from: 22000, to: 22999 },
      ipv4Pools: [],
    });
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).libvirt).toMatchObject({
      storagePool: 'default',
      keepaliveSeconds: 90,
      commandTimeoutSeconds: 120,
    });
    const { network } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      COMPUTE_PROVIDER: 'libvirt',
      NETWORK_MODE: 'bridge',
      NETWORK_IPV4_POOL: '203.0.113.7/24, 198.51.100.0/25@198.51.100.126',
      NETWORK_IPV6_POOL: '2001:0db8:0010::/64',
      NETWORK_DNS: '192.0.2.53,2001:db8::53',
    });
    expect(network.ipv4Pools).toEqual([
      { cidr: '203.0.113.0/24', prefix: 24, gateway: '203.0.113.1', first: 3405803777, last: 3405804030 },
      { cidr: '198.51.100.0/25', prefix: 25, gateway: '198.51.100.126', first: 3325256705, last: 3325256830 },
    ]);
    expect(network.ipv6Pool).toEqual({ cidr: '2001:db8:10:0::/64', prefix64: '2001:db8:10:0', gateway: '2001:db8:10:0::1' });
    expect(network.dns).toEqual(['192.0.2.53', '2001:db8::53']);
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      COMPUTE_PROVIDER: 'libvirt',
      NETWORK_MODE: 'bridge',
      NETWORK_SSH_PORTS: '80-90',
      NETWORK_IPV6_POOL: '2001:db8::/48',
      NETWORK_DNS: 'dns.example',
      LIBVIRT_STORAGE_POOL: 'bad pool',
      LIBVIRT_KEEPALIVE_SECONDS: '1',
      LIBVIRT_COMMAND_TIMEOUT_SECONDS: 'soon',
    });
    for (const name of [
      'NETWORK_IPV4_POOL is required',
      'NETWORK_SSH_PORTS',
      'NETWORK_IPV6_POOL',
      'NETWORK_DNS',
      'LIBVIRT_STORAGE_POOL',
      'LIBVIRT_KEEPALIVE_SECONDS',
      'LIBVIRT_COMMAND_TIMEOUT_SECONDS',
    ]) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
    expect(problems({ DATA_DIR: dataDir(), ...secrets, NETWORK_IPV4_POOL: '203.0.113.0/24@10.0.0.1' })[0]).toMatch(/^NETWORK_IPV4_POOL/);
  });

  it('defaults object storage to the simulator and reads the RGW settings', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).objectStorage).toMatchObject({
      provider: 'simulator',
      rgwZonegroup: 'default',
      regionUrls: {},
      purgeAfterDays: 7,
    });
    const config = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      OBJECT_STORAGE_PROVIDER: 'rgw',
      RGW_ADMIN_URL: 'http://10.0.0.9:7480/',
      RGW_ADMIN_ACCESS_KEY: 'ADMIN',
      RGW_ADMIN_SECRET_KEY: 'secret',
      RGW_ZONEGROUP: 'eu-central',
      RGW_REGION_URLS: 'us-east=https://s3.us-east.example.net',
      OBJECT_STORAGE_ENDPOINT: 'https://s3.eu-central.example.net',
      OBJECT_STORAGE_PURGE_AFTER_DAYS: '0.5',
    });
    expect(config.objectStorage).toMatchObject({
      provider: 'rgw',
      rgwAdminUrl: 'http://10.0.0.9:7480',
      rgwZonegroup: 'eu-central',
      regionUrls: { 'us-east': 'https://s3.us-east.example.net' },
      endpoint: 'https://s3.eu-central.example.net',
      purgeAfterDays: 0.5,
    });
  });

  it('refuses unusable object storage settings, naming each variable', () => {
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      OBJECT_STORAGE_PROVIDER: 'rgw',
      RGW_REGION_URLS: 'us-east',
      RGW_ZONEGROUP: 'Not A Zonegroup',
      OBJECT_STORAGE_PURGE_AFTER_DAYS: '-1',
      OBJECT_STORAGE_ENDPOINT: 'ftp://x',
    });
    for (const name of [
      'RGW_ADMIN_URL',
      'RGW_REGION_URLS',
      'RGW_ZONEGROUP',
      'OBJECT_STORAGE_PURGE_AFTER_DAYS',
      'OBJECT_STORAGE_ENDPOINT',
    ]) {
      expect(found.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it('names every missing secret in production', () => {
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toEqual([
      'JWT_SECRET is required when NODE_ENV=production',
      'SIGNING_SECRET is required when NODE_ENV=production',
      'ENCRYPTION_KEY is required when NODE_ENV=production',
    ]);
    expect(loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...secrets }).demoData).toBe(false);
  });

  it('takes a cheaper password hash outside production only', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), PASSWORD_HASH_COST: '10' }).passwordHashCost).toBe(10);
    expect(problems({ NODE_ENV: 'production', DATA_DIR: dataDir(), ...secrets, PASSWORD_HASH_COST: '10' })).toEqual([
      'PASSWORD_HASH_COST must be a whole number from 15 to 17 (got "10")',
    ]);
  });

  it('generates missing secrets once outside production and keeps them in DATA_DIR', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret).toBe(second.jwtSecret);
    expect(first.encryptionKey.equals(second.encryptionKey)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toHaveProperty('SIGNING_SECRET', first.signingSecret);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a whole number'],
    [{ PORT: '70000' }, 'PORT must be a whole number'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ DEMO_DATA: 'maybe' }, 'DEMO_DATA must be true or false'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY must be the base64 encoding of exactly 32 bytes'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters'],
    [{ BLOB_STORAGE: 's3' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required'],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, 'RATE_LIMIT_PER_MINUTE must be a whole number'],
    [{ RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE: '1e3' }, 'RATE_LIMIT_PASSWORD_RESET_IP_PER_MINUTE must be a whole number'],
  ])('explains %j', (env, message) => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, ...env }).join('\n')).toContain(message);
  });

  it('trusts no proxy, keeps connections 75 s and serves no metrics by default (issue 17)', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config).toMatchObject({
      trustProxy: false,
      httpKeepAliveTimeoutMs: 75_000,
      httpHeadersTimeoutMs: 76_000,
      metricsPort: undefined,
    });
    expect(config.notificationStreams).toEqual({ perAccount: 5, perIp: 20, maxSeconds: 3600 });
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses, and refuses anything else', () => {
    const read = (value: string) => loadConfig({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: value }).trustProxy;
    expect(read('1')).toBe(1);
    expect(read('10.0.0.1, 172.16.0.0/12,loopback,::1')).toEqual(['10.0.0.1', '172.16.0.0/12', 'loopback', '::1']);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: 'everyone' })[0]).toMatch(/^TRUST_PROXY/);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, TRUST_PROXY: '10.0.0.0/33' })[0]).toMatch(/^TRUST_PROXY/);
  });

  it('refuses headers timeouts not above the keep-alive timeout, and metrics on the API port', () => {
    expect(problems({ DATA_DIR: dataDir(), ...secrets, HTTP_KEEP_ALIVE_TIMEOUT_MS: '80000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS',
    ]);
    expect(problems({ DATA_DIR: dataDir(), ...secrets, PORT: '3000', METRICS_PORT: '3000' })).toEqual([
      'METRICS_PORT must differ from PORT: metrics stay off the public port',
    ]);
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets, METRICS_PORT: '9100' }).metricsPort).toBe(9100);
  });

  it('validates the mail and job settings', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), ...secrets });
    expect(config.mail).toEqual({ smtpUrl: undefined, from: 'Hosting Account <no-reply@localhost>', retryDelaySeconds: 30 });
    expect(config.jobs.pollIntervalMs).toBe(2000);
    expect(config.rateLimit).toMatchObject({ mfaPerMinute: 10, passwordResetPerHour: 5, passwordResetIpPerMinute: 10, emailPerHour: 5 });
    expect(
      loadConfig({ DATA_DIR: dataDir(), ...secrets, SMTP_URL: 'smtps://u:p@mail.example.com:465', MAIL_FROM: 'ops@example.com' }).mail,
    ).toMatchObject({
      smtpUrl: 'smtps://u:p@mail.example.com:465',
      from: 'ops@example.com',
    });
    const found = problems({
      DATA_DIR: dataDir(),
      ...secrets,
      SMTP_URL: 'http://mail.example.com',
      MAIL_FROM: 'nobody',
      JOBS_POLL_INTERVAL_MS: '10',
      MAIL_RETRY_DELAY_SECONDS: '0',
    });
    expect(found).toEqual([
      'SMTP_URL must be a URL (smtp: or smtps:)',
      'MAIL_RETRY_DELAY_SECONDS must be a whole number from 1 to 86400 (got "0")',
      'JOBS_POLL_INTERVAL_MS must be a whole number from 500 to 60000 (got "10")',
      'MAIL_FROM must be an address, e.g. "Hosting <no-reply@example.com>"',
    ]);
  });

  it('defaults webhooks to https, public addresses only, 10 s an attempt, 32 endpoints at once, 24 h of retries and disabling after 3 days', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...secrets }).webhooks).toEqual({
      allowHttp: false,
      allowPrivate: false,
      retryBaseSeconds: 30,
      retryWindowSeconds: 86_400,
      disableAfterSeconds: 259_200,
      timeoutSeconds: 10,
      concurrency: 32,
    });
    expect(
      problems({
        DATA_DIR: dataDir(),
        ...secrets,
        WEBHOOKS_ALLOW_PRIVATE: 'maybe',
        WEBHOOKS_RETRY_BASE_SECONDS: '0',
        WEBHOOKS_TIMEOUT_SECONDS: '30',
        WEBHOOKS_CONCURRENCY: '100',
      }),
    ).toEqual([
      'WEBHOOKS_ALLOW_PRIVATE must be true or false (got "maybe")',
      'WEBHOOKS_RETRY_BASE_SECONDS must be a whole number from 1 to 3600 (got "0")',
      'WEBHOOKS_TIMEOUT_SECONDS must be a whole number from 1 to 15 (got "30")',
      'WEBHOOKS_CONCURRENCY must be a whole number from 1 to 64 (got "100")',
    ]);
  });
});
