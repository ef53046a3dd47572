import { Problem, problemFor } from '@app/core';
import { DnsRejected, DnsUnavailable, DnsZoneHeld } from './provider/dns-provider';
import { RecordInvalid } from './records/dns-record';
import { ZoneFileInvalid } from './zone-file/zone-file-parser';

/** How the DNS area's errors read at the edge; loaded with the area (index.ts). */
problemFor(
  DnsUnavailable,
  () =>
    new Problem(503, 'dns_unavailable', 'The DNS servers did not answer in time; nothing was changed. Try again shortly.', undefined, {
      'Retry-After': '5',
    }),
);

problemFor(DnsRejected, (err) => new Problem(400, 'invalid_input', `The DNS server refused the change: ${err.message}`));

problemFor(RecordInvalid, (err) => new Problem(400, 'invalid_input', err.message, [{ field: err.field, message: err.message }]));

problemFor(
  ZoneFileInvalid,
  (err) => new Problem(400, 'invalid_input', `The zone file has ${err.errors.length} refused line(s); nothing was imported.`, err.errors),
);

/** A zone name held already: by another account, by this one under the same name, or on the servers for someone else. */
export const zoneExists = () =>
  Problem.conflict('zone_exists', 'This zone, or a zone containing it or within it, is already held on these nameservers.');

problemFor(DnsZoneHeld, zoneExists);
