import { Problem } from './problem';

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

const mappings: [ErrorClass<Error>, (err: Error) => Problem][] = [];

/**
 * How an area's own error reads as a problem: adapters and use cases throw their errors (a
 * `MetricsUnavailable`, a `ComputeProviderError`), and the edge (ProblemFilter, the operator's
 * command line) turns them into problems here, so nothing below a controller names a status code.
 */
export function problemFor<E extends Error>(type: ErrorClass<E>, toProblem: (err: E) => Problem): void {
  if (mappings.some(([known]) => known === type)) return;
  mappings.push([type, toProblem as (err: Error) => Problem]);
}

/** The problem an error stands for: a Problem itself, or a domain error's mapping; undefined for anything else (a bug). */
export function asProblem(err: unknown): Problem | undefined {
  if (err instanceof Problem) return err;
  const mapping = mappings.find(([type]) => err instanceof type);
  return mapping?.[1](err as Error);
}

/**
 * What an error says for operators only (`operatorDetail`: a hypervisor's own words, which name
 * hosts and paths): the operator's command line prints it; a problem's answer never has it.
 */
export function operatorDetailOf(err: unknown): string | null {
  const detail = (err as { operatorDetail?: unknown } | null)?.operatorDetail;
  return typeof detail === 'string' && detail ? detail : null;
}
