import type { Command } from 'commander';
import type { HostingClient } from '@hosting-account/sdk';
import type { OutputOptions } from './output';
import { apiClient } from './session';

export interface GlobalOptions extends OutputOptions {
  context?: string;
  /** false with `--no-wait-rate-limit`. */
  waitRateLimit?: boolean;
}

/** The program-wide options (`-o`, `--no-header`, `--context`, `--no-wait-rate-limit`) as seen from any subcommand. */
export function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** The client for a subcommand's context, and its output options. */
export function session(command: Command): { api: HostingClient; out: GlobalOptions } {
  const out = globals(command);
  return { api: apiClient(out), out };
}

/** A help section of examples, as `hcloud` and `doctl` print them. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error('must be a positive whole number');
  return Number(value);
}

/** A repeatable option's values, in order: `.option('--rule <rule>', '...', collect)`. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
