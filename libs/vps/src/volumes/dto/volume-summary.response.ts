import { ApiProperty } from '@nestjs/swagger';
import { declareServicePart } from '@app/services';
import { VOLUME_STATES, VolumeState } from '../volume.types';

export class VolumeSummaryResponse {
  @ApiProperty({ type: 'integer', format: 'int32', example: 100, description: 'Size in GiB (grown by POST .../volume/resize).' })
  sizeGb: number;
  @ApiProperty({ example: 'eu-central', description: 'The region; it attaches to VPSes of this region only.' })
  region: string;
  @ApiProperty({
    enum: VOLUME_STATES,
    example: 'attached',
    description: '`attaching`, `detaching` and `resizing` while an action runs (GET .../volume/actions/{actionId}).',
  })
  state: VolumeState;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The VPS service it is attached to; null when detached.' })
  attachedTo: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '/dev/disk/by-id/virtio-vol-3f2a9c0e5b7d4e1a',
    description:
      "Where the VPS's Linux finds it while attached: a path fixed by the volume's id, the same on every VPS and after every reboot (use it in /etc/fstab). Null when detached.",
  })
  device: string | null;
}

/** A volume service's part of the service response. */
export const VOLUME_PART = declareServicePart({
  type: 'volume',
  key: 'volume',
  response: VolumeSummaryResponse,
  description: 'The block device of a volume service (size, region, the VPS it is attached to); null for other types.',
});

declare module '@app/services' {
  interface ServiceParts {
    volume: VolumeSummaryResponse;
  }
}
