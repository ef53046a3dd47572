import type { GuestNetwork } from '../compute-provider';
import type { VolumeSource } from '../volumes/volume-backend';
import { vpsFilterRef } from './network-filters';
import { rbdDiskXml } from './volume-disks';

type RbdSource = Extract<VolumeSource, { type: 'rbd' }>;

/**
 * The built-in domain: a TCG guest (no /dev/kvm needed) booting from its root disk, with the
 * cloud-init seed as a CD-ROM and the network of NETWORK_MODE. Without an image it has no disk
 * and stops at SeaBIOS's "No bootable device". The qemu-guest-agent channel lets a snapshot freeze
 * the guest's filesystems when the image runs the agent. Real hosts set LIBVIRT_DOMAIN_TEMPLATE (type='kvm').
 */
export const DEFAULT_DOMAIN_TEMPLATE = `<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>{{name}}</name>
  <description>VPS service {{serviceId}}</description>
  <memory unit='MiB'>{{memoryMb}}</memory>
  <vcpu>{{vcpus}}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <boot dev='hd'/>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    {{disks}}
    {{network}}
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
    <video><model type='vga'/></video>
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
  </devices>
  {{qemuCommandline}}
</domain>
`;

export interface DomainValues {
  name: string;
  serviceId: string;
  vcpus: number;
  memoryMb: number;
  vncListen: string;
  /** Never handed out: QEMU accepts per-session passwords only on a display started with one. */
  vncPassword: string;
  pool: string;
  /** Empty when the VPS has no image (no disk, no seed). */
  rootVolume: string;
  seedVolume: string;
  /** Where the region's disks are on Ceph: the two RBD images in place of the pool's volumes. */
  rbdDisks?: { root: RbdSource; seed: RbdSource } | null;
  macAddress: string;
  network: GuestNetwork | null;
}

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;
export const TEMPLATE_PLACEHOLDERS = [
  'name',
  'serviceId',
  'vcpus',
  'memoryMb',
  'memoryKiB',
  'vncListen',
  'vncPassword',
  'pool',
  'rootVolume',
  'seedVolume',
  'macAddress',
  'disks',
  'network',
  'qemuCommandline',
] as const;
/** Placeholders replaced by whole elements (written by us, not escaped). */
const ELEMENT_PLACEHOLDERS = new Set(['disks', 'network', 'qemuCommandline']);
const QEMU_NS = 'http://libvirt.org/schemas/domain/qemu/1.0';
/** The namespace of the deployment mark in a domain's <metadata>; never fetched. */
export const DEPLOYMENT_NS = 'https://hosting-account-api.invalid/libvirt/deployment/1';

/** Problems that make a template unusable (checked at boot), empty when it is fine. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const [, key] of template.matchAll(PLACEHOLDER)) {
    if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(key)) problems.push(`unknown placeholder {{${key}}}`);
  }
  if (!/\{\{\s*name\s*\}\}/.test(template)) problems.push('the domain <name> must be {{name}}');
  const vnc = /<graphics\s[^>]*type=['"]vnc['"][^>]*>/.exec(template)?.[0];
  if (!vnc) problems.push(`a <graphics type='vnc'> device is needed for the console`);
  else if (!/\spasswd=/.test(vnc))
    problems.push(`the VNC device needs passwd='{{vncPassword}}' (QEMU sets session passwords only on a display started with one)`);
  if (
    /\{\{\s*qemuCommandline\s*\}\}/.test(template) &&
    !template.includes(`xmlns:qemu='${QEMU_NS}'`) &&
    !template.includes(`xmlns:qemu="${QEMU_NS}"`)
  ) {
    problems.push(`{{qemuCommandline}} needs xmlns:qemu='${QEMU_NS}' on <domain>`);
  }
  if (template.includes(DEPLOYMENT_NS)) problems.push('the deployment mark is added to <metadata> by the API; remove it from the template');
  return problems;
}

export function renderDomain(template: string, values: DomainValues): string {
  const all: Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string> = {
    name: values.name,
    serviceId: values.serviceId,
    vcpus: String(values.vcpus),
    memoryMb: String(values.memoryMb),
    memoryKiB: String(values.memoryMb * 1024),
    vncListen: values.vncListen,
    vncPassword: values.vncPassword,
    pool: values.pool,
    rootVolume: values.rootVolume,
    seedVolume: values.seedVolume,
    macAddress: values.macAddress,
    disks: disksXml(values),
    network: values.network?.mode === 'bridge' ? bridgeXml(values.network.bridge, values.macAddress, values.serviceId) : '',
    qemuCommandline: values.network?.mode === 'user' ? userNetworkXml(values.network, values.macAddress) : '',
  };
  return template.replace(PLACEHOLDER, (_, key: keyof typeof all) => (ELEMENT_PLACEHOLDERS.has(key) ? all[key] : escapeXml(all[key])));
}

/** The domain with this deployment's mark: in the template's own <metadata>, or a new one after <name>. */
export function withDeploymentMark(xml: string, deploymentId: string): string {
  const mark = `<hosting:deployment xmlns:hosting='${DEPLOYMENT_NS}'>${escapeXml(deploymentId)}</hosting:deployment>`;
  if (/<metadata\s*\/>/.test(xml)) return xml.replace(/<metadata\s*\/>/, `<metadata>${mark}</metadata>`);
  if (xml.includes('</metadata>')) return xml.replace('</metadata>', `${mark}</metadata>`);
  return xml.replace(/<\/name>/, `</name>\n  <metadata>${mark}</metadata>`);
}

/** The deployment id in `virsh metadata --uri DEPLOYMENT_NS` (`<deployment>id</deployment>`); null when empty. */
export function deploymentMarkOf(metadata: string): string | null {
  const id = /<(?:[\w.-]+:)?deployment(?:\s[^>]*)?>([^<]*)</.exec(metadata)?.[1]?.trim();
  return id ? unescapeXml(id) : null;
}

function disksXml(values: DomainValues): string {
  if (!values.rootVolume) return '';
  if (values.rbdDisks) {
    return [
      rbdDiskXml(values.rbdDisks.root, 'disk', `<target dev='vda' bus='virtio'/>`),
      rbdDiskXml(values.rbdDisks.seed, 'cdrom', `<target dev='hdc' bus='ide'/><readonly/>`),
    ].join('\n    ');
  }
  const pool = escapeXml(values.pool);
  return [
    `<disk type='volume' device='disk'><driver name='qemu' type='qcow2'/><source pool='${pool}' volume='${escapeXml(values.rootVolume)}'/><target dev='vda' bus='virtio'/></disk>`,
    `<disk type='volume' device='cdrom'><driver name='qemu' type='raw'/><source pool='${pool}' volume='${escapeXml(values.seedVolume)}'/><target dev='hdc' bus='ide'/><readonly/></disk>`,
  ].join('\n    ');
}

/** The VPS's nwfilter holds its firewalls (network-filters.ts); defined before the domain is. */
function bridgeXml(bridge: string, mac: string, serviceId: string): string {
  const source = `<source bridge='${escapeXml(bridge)}'/><mac address='${escapeXml(mac)}'/><model type='virtio'/>`;
  return `<interface type='bridge'>${source}${vpsFilterRef(serviceId)}</interface>`;
}

/**
 * libvirt 9.0 (Debian 12) has no passt backend, so QEMU's own user networking, through
 * <qemu:commandline>: restrict=on leaves the guest no route off the host; port 22 is forwarded
 * from the VPS's own port. addr pins the NIC's PCI slot (QEMU would otherwise take the one
 * libvirt gave the disk).
 */
function userNetworkXml(network: Extract<GuestNetwork, { mode: 'user' }>, mac: string): string {
  const netdev = `user,id=n0,restrict=on,hostfwd=tcp:${network.sshHost}:${network.sshPort}-:22`;
  const device = `virtio-net-pci,netdev=n0,bus=pci.0,addr=0x10,mac=${mac}`;
  const args = ['-netdev', netdev, '-device', device].map((arg) => `<qemu:arg value='${escapeXml(arg)}'/>`).join('');
  return `<qemu:commandline>${args}</qemu:commandline>`;
}

export interface VncGraphics {
  /** The whole live <graphics type='vnc'> element, as libvirt wrote it. */
  element: string;
  port: number;
  listen: string | null;
}

/** The live VNC device of a running domain (from `virsh dumpxml`); null when it has none or no port yet. */
export function vncGraphics(domainXml: string): VncGraphics | null {
  const element = /<graphics\s(?=[^>]*type='vnc')[^>]*?(?:\/>|>[\s\S]*?<\/graphics>)/.exec(domainXml)?.[0];
  if (!element) return null;
  const port = Number(/\sport='(-?\d+)'/.exec(element)?.[1]);
  if (!Number.isInteger(port) || port <= 0) return null;
  const listen = /\slisten='([^']*)'/.exec(element)?.[1] ?? /<listen\s[^>]*address='([^']*)'/.exec(element)?.[1] ?? null;
  return { element, port, listen };
}

/** The same device with a new password valid until `validTo`, for `virsh update-device --live`. */
export function withVncPassword(element: string, password: string, validTo: Date): string {
  const bare = element.replace(/\s(passwd|passwdValidTo|connected)='[^']*'/g, '');
  const until = validTo.toISOString().slice(0, 19);
  return bare.replace(/^<graphics/, `<graphics passwd='${escapeXml(password)}' passwdValidTo='${until}'`);
}

function unescapeXml(value: string): string {
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
  return value.replace(/&(lt|gt|amp|apos|quot);/g, (_, name: string) => named[name]);
}

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}
