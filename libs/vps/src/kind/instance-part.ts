import type { InstanceSummaryResponse } from '@app/services';
import { publicPowerState } from '../vps.types';
import type { InstanceRow } from '../vps-instances.repository';

/** A VPS's `instance` in the service response. */
export function instancePart(row: Omit<InstanceRow, 'id'>): InstanceSummaryResponse {
  return {
    powerState: publicPowerState(row.powerState),
    ipv4: row.ipv4,
    ipv6: row.ipv6,
    region: row.region ?? '',
    ssh: row.sshHost && row.sshPort ? { host: row.sshHost, port: Number(row.sshPort) } : row.ipv4 ? { host: row.ipv4, port: 22 } : null,
  };
}
