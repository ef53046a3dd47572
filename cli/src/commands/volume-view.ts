import { HostingClient, Schemas } from '@hosting-account/sdk';
import { Column, format, printData, printList, printObject, OutputOptions } from '../output';
import { vpsNames } from '../service-ref';

/** A volume service: the service, with its block device in `volume`. */
export type VolumeService = Schemas['ServiceResponse'];

/** The volume's state (attached, detached, or the action under way), or the service's status when it is not active. */
export function volumeState(service: VolumeService): string | undefined {
  return service.status === 'active' ? service.volume?.state : service.status;
}

/** The VPS a volume is attached to, by name when the account's list says it. */
function attachedTo(service: VolumeService, names: Map<string, string>): string | undefined {
  const id = service.volume?.attachedTo;
  return id ? (names.get(id) ?? id) : undefined;
}

export function volumeColumns(names: Map<string, string>): Column<VolumeService>[] {
  return [
    { header: 'NAME', value: (s) => s.name },
    { header: 'ID', value: (s) => s.id },
    { header: 'SIZE', value: (s) => (s.volume ? `${s.volume.sizeGb} GiB` : undefined) },
    { header: 'REGION', value: (s) => s.volume?.region },
    { header: 'STATE', value: volumeState, status: true },
    { header: 'ATTACHED TO', value: (s) => attachedTo(s, names) },
    { header: 'DEVICE', value: (s) => s.volume?.device },
  ];
}

/** VPS names only when a table will show them: JSON and YAML are the API's objects as they are. */
async function namesFor(api: HostingClient, volumes: VolumeService[], out: OutputOptions): Promise<Map<string, string>> {
  return format(out) === 'table' && volumes.some((v) => v.volume?.attachedTo) ? vpsNames(api) : new Map();
}

export async function printVolumes(api: HostingClient, volumes: VolumeService[], out: OutputOptions): Promise<void> {
  printList(volumes, volumeColumns(await namesFor(api, volumes, out)), out);
}

/** A volume for a person: its fields, the VPS by name and id; for -o json|yaml the API's service object. */
export async function showVolume(api: HostingClient, service: VolumeService, out: OutputOptions): Promise<void> {
  const kind = format(out);
  if (kind !== 'table') return printData(service, kind);
  const names = await namesFor(api, [service], out);
  const vps = service.volume?.attachedTo;
  printObject(
    service,
    [
      { header: 'ID', value: (s) => s.id },
      { header: 'Name', value: (s) => s.name },
      { header: 'Size', value: (s) => (s.volume ? `${s.volume.sizeGb} GiB` : undefined) },
      { header: 'Region', value: (s) => s.volume?.region },
      { header: 'State', value: volumeState, status: true },
      { header: 'Attached to', value: (s) => (vps && names.has(vps) ? `${attachedTo(s, names)} (${vps})` : vps) },
      { header: 'Device', value: (s) => s.volume?.device },
      { header: 'Price', value: (s) => `${s.price} ${s.currency}/${s.billingCycle}` },
      { header: 'Created', value: (s) => s.createdAt },
    ],
    out,
  );
}
