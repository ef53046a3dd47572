import { loadConfig } from './load-config';
import { dataDir, problems, removeDataDirs, secrets } from './load-config.fixtures';

describe('loadConfig: compute, networks and object storage', () => {
  afterEach(removeDataDirs);

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
      diskTransfer: 'auto',
      commandTimeoutSeconds: 120,
    });
    const { network } = loadConfig({
      DATA_DIR: dataDir(),
      ...secrets,
      COMPUTE_PROVIDER: 'libvirt',
      NETWORK_MODE: 'bridge',
      NETWORK_IPV4_POOL: '203.0.113.7/24, 198.51.100.0/25@198.51.100.126',
      NETWORK_IPV6_POOL: '2001:0db8:0010::/64',
      NETWORK_DNS: '192.0.2.53,2001:DB8:0:0::0053',
    });
    expect(network.ipv4Pools).toEqual([
      { cidr: '203.0.113.0/24', prefix: 24, gateway: '203.0.113.1', first: 3405803777, last: 3405804030 },
      { cidr: '198.51.100.0/25', prefix: 25, gateway: '198.51.100.126', first: 3325256705, last: 3325256830 },
    ]);
    expect(network.ipv6Pool).toEqual({ cidr: '2001:db8:10::/64', prefix64: '2001:db8:10:0', gateway: '2001:db8:10::1' });
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
      LIBVIRT_DISK_TRANSFER: 'scp',
      LIBVIRT_COMMAND_TIMEOUT_SECONDS: 'soon',
    });
    for (const name of [
      'NETWORK_IPV4_POOL is required',
      'NETWORK_SSH_PORTS',
      'NETWORK_IPV6_POOL',
      'NETWORK_DNS',
      'LIBVIRT_STORAGE_POOL',
      'LIBVIRT_KEEPALIVE_SECONDS',
      'LIBVIRT_DISK_TRANSFER',
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
});
