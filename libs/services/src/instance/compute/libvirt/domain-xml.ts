/**
 * The built-in domain: a diskless TCG guest (no /dev/kvm needed) that boots to SeaBIOS's "No
 * bootable device". Enough to try the provider; real hosts set LIBVIRT_DOMAIN_TEMPLATE.
 */
export const DEFAULT_DOMAIN_TEMPLATE = `<domain type='qemu'>
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
    <graphics type='vnc' autoport='yes' listen='{{vncListen}}' passwd='{{vncPassword}}'/>
    <video><model type='vga'/></video>
  </devices>
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
}

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;
export const TEMPLATE_PLACEHOLDERS = ['name', 'serviceId', 'vcpus', 'memoryMb', 'memoryKiB', 'vncListen', 'vncPassword'] as const;

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
  };
  return template.replace(PLACEHOLDER, (_, key: keyof typeof all) => escapeXml(all[key]));
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

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}
