import type { RecordType } from '../provider/dns-provider';

/** A record as a client sends it (POST, PATCH merged over the stored one, a zone file's line). */
export interface RecordInput {
  name: string;
  type: string;
  ttl?: number;
  value: string;
  priority?: number | null;
  weight?: number | null;
  port?: number | null;
}

/**
 * A record as the API stores and shows it: `name` relative to the zone (`@` the apex, `www`,
 * `*.dev`), lower-case ASCII (IDNA names in punycode); `value` in its one canonical form: an
 * address as written by RFC 5952, a target name absolute with the trailing dot, a TXT's text as
 * the customer wrote it (unquoted, unsplit), a CAA as `0 issue "letsencrypt.org"`.
 */
export interface DnsRecordData {
  name: string;
  type: RecordType;
  ttl: number;
  value: string;
  priority: number | null;
  weight: number | null;
  port: number | null;
}

/** One refused field of one record (`value`, `ttl`, ...), or one refused line of a zone file (`line 12`). */
export class RecordInvalid extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'RecordInvalid';
  }
}

export const DEFAULT_TTL = 3600;
export const MIN_TTL = 60;
export const MAX_TTL = 604_800;
