import type * as Yaml from 'yaml';

// The yaml package was two thirds of what hostctl loaded at start; only `-o yaml` and rules read from YAML use it.
let loaded: typeof Yaml | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = (): typeof Yaml => (loaded ??= require('yaml') as typeof Yaml);

export const toYaml = (value: unknown): string => yaml().stringify(value);
export const fromYaml = (text: string): unknown => yaml().parse(text);
