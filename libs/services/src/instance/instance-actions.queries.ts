import { isoText } from '../services.queries';
import type { ActionStatus, ActionType } from '../service.types';

export const ACTION_COLUMNS = `id, service_id, type, status, ${isoText('started_at')} AS started_at, ${isoText('finished_at')} AS finished_at,
       error_code, error_message`;

export interface ActionRow {
  id: string;
  service_id: string;
  type: ActionType;
  status: ActionStatus;
  started_at: string;
  finished_at: string | null;
  error_code: string | null;
  error_message: string | null;
}
