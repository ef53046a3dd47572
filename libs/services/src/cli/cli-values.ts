import { CliArgs, CliUsageError } from '@app/core';

/** An optional option that must be one of `allowed`. */
export function oneOf<T extends string>(args: CliArgs, name: string, allowed: readonly T[]): T | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw new CliUsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}
