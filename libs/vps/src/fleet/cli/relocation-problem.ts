import { Problem } from '@app/core';
import { RelocationError } from '../relocation/relocation-error';

/** A relocation's domain error as the CLI prints it (`<code>: <message>`, exit 65); anything else as it is. */
export function problemOf(err: unknown): unknown {
  if (!(err instanceof RelocationError)) return err;
  if (err.code === 'not_found') return new Problem(404, 'not_found', err.message);
  return Problem.conflict(err.code === 'no_capacity' ? 'no_capacity' : 'invalid_state', err.message);
}
