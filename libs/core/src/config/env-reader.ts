type Env = Record<string, string | undefined>;

/** Reads environment variables by type, collecting every problem instead of stopping at the first. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, fallback?: string, protocols?: string[]): string | undefined {
    const raw = this.string(name, fallback);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (protocols && !protocols.includes(parsed.protocol)) throw new Error();
    } catch {
      this.problems.push(`${name} must be a URL${protocols ? ` (${protocols.join(' or ')})` : ''}`);
    }
    return raw;
  }
}
