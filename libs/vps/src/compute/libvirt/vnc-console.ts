import { ComputeProviderError, ConsoleTarget, InstanceRef } from '../compute-provider';
import { vncGraphics, withVncPassword } from './domain-xml';
import { LibvirtDomains } from './libvirt-domains';
import { vncPassword } from './vnc-password';
import { withXmlFile } from './xml-file';

/** The console token lasts 60 s; the password as long again, for the customer to type it in. */
const CONSOLE_PASSWORD_VALID_MS = 120_000;

/** The domain's VNC server with a fresh password (valid CONSOLE_PASSWORD_VALID_MS), set live. */
export async function openVncConsole(domains: LibvirtDomains, instance: InstanceRef, readTimeoutMs: number): Promise<ConsoleTarget> {
  const name = domains.domainOf(instance);
  const graphics = vncGraphics(await domains.run(instance, ['dumpxml', name], readTimeoutMs));
  if (!graphics) throw new ComputeProviderError('no_console', 'The machine has no VNC console, or it is not running.');
  const password = vncPassword();
  const device = withVncPassword(graphics.element, password, new Date(Date.now() + CONSOLE_PASSWORD_VALID_MS));
  await withXmlFile(device, (file) => domains.run(instance, ['update-device', name, file, '--live']));
  return {
    protocol: 'vnc',
    host: domains.vncHost(instance, graphics.listen),
    port: graphics.port,
    password,
    upstream: { domain: name },
  };
}
