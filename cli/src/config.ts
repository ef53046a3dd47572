import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './errors';

/** Credentials of one account on one API: an API key, or a session that hostctl refreshes. */
export interface Context {
  url: string;
  email?: string;
  apiKey?: string;
  accessToken?: string;
  accessTokenExpiresAt?: string;
  refreshToken?: string;
}

export interface ConfigFile {
  currentContext?: string;
  contexts: Record<string, Context>;
}

export const DEFAULT_URL = 'http://127.0.0.1:3000';

/** `$XDG_CONFIG_HOME/hostctl/config.json` (`~/.config/hostctl/config.json` without it). */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'hostctl', 'config.json');
}

export function readConfig(path = configPath()): ConfigFile {
  if (!existsSync(path)) return { contexts: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${path} is not valid JSON; fix or delete it`);
  }
  const config = parsed as Partial<ConfigFile>;
  return { currentContext: config.currentContext, contexts: config.contexts && typeof config.contexts === 'object' ? config.contexts : {} };
}

/** Written to a temporary file with mode 0600, then renamed, so a crash never leaves half a file. */
export function writeConfig(config: ConfigFile, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function updateConfig(change: (config: ConfigFile) => void): ConfigFile {
  const config = readConfig();
  change(config);
  writeConfig(config);
  return config;
}

/** The context to use: `--context`, else `HOSTCTL_CONTEXT`, else the current one, else "default". */
export function contextName(config: ConfigFile, flag?: string): string {
  return flag || process.env.HOSTCTL_CONTEXT || config.currentContext || 'default';
}
