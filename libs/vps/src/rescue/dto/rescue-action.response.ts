import { ApiProperty } from '@nestjs/swagger';
import { InstanceActionResponse } from '../../actions/dto/instance-action.response';

/** The answer to POST .../instance/rescue: the action, and root's password of the rescue system, shown this once. */
export class RescueActionResponse extends InstanceActionResponse {
  @ApiProperty({
    example: 'q7Hm2xKpW4tRz9LbN3cV',
    pattern: '^[A-HJ-NP-Za-km-z2-9]{20}$',
    description:
      "root's password in the rescue system (for the console; SSH takes the keys). In this answer only: it is stored nowhere, and the action's later GETs, the activity log and webhooks do not show it.",
  })
  rootPassword: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the rescue ends by itself (RESCUE_HOURS after it began) unless unrescued before.',
  })
  rescueEndsAt: string;
}
