import type { Response } from 'express';
import { InstanceActionResponse } from './dto/instance-action.response';
import type { InstanceActionsService } from './instance-actions.service';

/** The OpenAPI answer of a route that begins an action. */
export const ACCEPTED_ACTION = {
  type: InstanceActionResponse,
  description: 'The action began; follow Location to see it finish.',
  headers: { Location: { description: 'URL of the action.', schema: { type: 'string', format: 'uri' } } },
};

/** The action that began, with Location set to where it is followed to its end. */
export async function acceptedAction<T extends InstanceActionResponse>(
  res: Response,
  actions: InstanceActionsService,
  action: Promise<T>,
): Promise<T> {
  const started = await action;
  res.setHeader('Location', actions.locationOf(started));
  return started;
}
