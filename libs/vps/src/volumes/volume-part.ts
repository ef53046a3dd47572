import { volumeDevicePath } from '../compute/volumes/volume-names';
import type { VolumeSummaryResponse } from './dto/volume-summary.response';
import type { VolumeRow } from './volumes.repository';

/** A volume's `volume` in the service response: its device path only while a VPS has it. */
export function volumePart(row: VolumeRow): VolumeSummaryResponse {
  const onVps = row.attachedTo !== null && row.state !== 'attaching';
  return {
    sizeGb: row.sizeGb,
    region: row.region,
    state: row.state,
    attachedTo: row.attachedTo,
    device: onVps ? volumeDevicePath(row.id) : null,
  };
}
