/** The record types a customer writes; PTR and SOA are the API's own (reverse zones, serials). */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/**
 * One RRset as the authoritative server holds it: every record of one name and type, one TTL.
 * `name` is absolute with the trailing dot (`www.example.com.`); `contents` are the records' data in
 * zone-file presentation form (`10 mail.example.com.`, `"v=spf1 -all"`); empty contents delete the set.
 */
export interface DnsRecordSet {
  name: string;
  type: RecordType | 'PTR' | 'SOA';
  ttl: number;
  contents: string[];
}

/** The server did not answer in time (DNS_TIMEOUT_MS), refused the connection or failed (5xx): 503 dns_unavailable. */
export class DnsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DnsUnavailable';
  }
}

/** The server refused the change as invalid (a record the API's own checks let through): 400. */
export class DnsRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DnsRejected';
  }
}

/** The servers hold a zone of this name that this API did not make (the provider's own, made by hand): 409 zone_exists. */
export class DnsZoneHeld extends Error {
  constructor(zone: string) {
    super(`The DNS servers hold ${zone} for someone else`);
    this.name = 'DnsZoneHeld';
  }
}

/**
 * The port to the authoritative DNS servers (PowerDNS through its HTTP API; a simulator by
 * default). Zone names are absolute with the trailing dot (`example.com.`). Every change is one
 * atomic request: it is applied entirely or not at all.
 */
export abstract class DnsProvider {
  /** `powerdns` or `simulator`, as /health/ready reports it. */
  abstract readonly kind: 'powerdns' | 'simulator';

  /**
   * Creates the zone holding these NS names at its apex and this SOA (the API keeps the serial:
   * the server must not change it). A zone of this name the API made before (a create whose
   * record was never committed) is replaced; one it did not make throws DnsZoneHeld.
   */
  abstract createZone(zone: string, nameservers: string[], soa: DnsRecordSet): Promise<void>;

  /** Deletes the zone if the API made it; one the server does not have, or holds for someone else, is left. */
  abstract deleteZone(zone: string): Promise<void>;

  /** Replaces each named RRset by the given one (empty contents: removes it), all or nothing. */
  abstract replaceRecordSets(zone: string, sets: DnsRecordSet[]): Promise<void>;

  /** Every zone the API made on the server (absolute names), for the reconciliation. */
  abstract listZones(): Promise<string[]>;

  /** Every RRset of the zone, SOA and NS included; null when the server has no such zone. */
  abstract recordSets(zone: string): Promise<DnsRecordSet[] | null>;

  /** Whether the server answers now (within DNS_TIMEOUT_MS). */
  abstract reachable(): Promise<boolean>;
}
