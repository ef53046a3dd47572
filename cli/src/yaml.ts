import type * as Yaml from 'yaml';

// yaml was two thirds of hostctl's start once the MCP SDK loaded lazily (137 of 204 ms, half the modules); only `-o yaml` and rules read from YAML use it.
let loaded: typeof Yaml | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = (): typeof Yaml => (loaded ??= require('yaml') as typeof Yaml);

export const toYaml = (value: unknown): string => yaml().stringify(value);
export const fromYaml = (text: string): unknown => yaml().parse(text);
