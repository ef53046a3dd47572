import { ComputeProviderError, InstanceRef } from '../compute-provider';
import type { DeploymentMarks } from './deployment-marks';
import { LibvirtDomains, LOOK_TIMEOUT_MS } from './libvirt-domains';
import { bridgeInterfaceWithFilter } from './network-filters';
import { withXmlFile } from './xml-file';

/**
 * A domain defined before firewalls existed has a bridged interface without the VPS's filter: it
 * gets it, in its definition and (running) live. A domain not defined yet gets it when it is.
 */
export async function filterBridgedInterface(domains: LibvirtDomains, marks: DeploymentMarks, instance: InstanceRef): Promise<void> {
  const domain = await domains
    .info(instance, LOOK_TIMEOUT_MS)
    .catch((err: unknown) => (err instanceof ComputeProviderError && err.code === 'not_found' ? null : Promise.reject(err)));
  if (!domain) return;
  const views = domain.id ? (['--config', '--live'] as const) : (['--config'] as const);
  for (const view of views) {
    const xml = await domains.run(instance, view === '--config' ? ['dumpxml', '--inactive', domain.name] : ['dumpxml', domain.name]);
    const device = bridgeInterfaceWithFilter(xml, instance.serviceId);
    if (!device) continue;
    await marks.refuseForeign(domains.uriOf(instance), domain.name);
    await withXmlFile(device, (file) => domains.run(instance, ['update-device', domain.name, file, view]));
  }
}
