/**
 * The SSH wire encoding of a public key blob (RFC 4253 section 6.6): a sequence of strings, each a
 * 4-byte big-endian length and that many bytes. OpenSSH refuses a blob with a field cut short or
 * with bytes left over; sshpk alone lets both through, so the blob is checked here first.
 */
export function readSshFields(blob: Buffer): Buffer[] | null {
  const fields: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (blob.length - at < 4) return null;
    const length = blob.readUInt32BE(at);
    at += 4;
    if (length > blob.length - at) return null;
    fields.push(blob.subarray(at, at + length));
    at += length;
  }
  return fields;
}

/** The key type named inside the blob (its first string), read leniently; null if there is none. */
export function typeInBlob(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return null;
  const name = blob.subarray(4, 4 + length).toString('latin1');
  return /^[\x21-\x7e]+$/.test(name) ? name : null;
}

const CURVES: Record<string, { name: string; pointBytes: number }> = {
  'ecdsa-sha2-nistp256': { name: 'nistp256', pointBytes: 1 + 2 * 32 },
  'ecdsa-sha2-nistp384': { name: 'nistp384', pointBytes: 1 + 2 * 48 },
  'ecdsa-sha2-nistp521': { name: 'nistp521', pointBytes: 1 + 2 * 66 },
};

/** True when the fields have exactly the shape OpenSSH expects for the type. */
export function hasExpectedShape(type: string, fields: Buffer[]): boolean {
  if (type === 'ssh-ed25519') return fields.length === 2 && fields[1].length === 32;
  if (type === 'ssh-rsa') return fields.length === 3 && isPositiveMpint(fields[1]) && isPositiveMpint(fields[2]);
  const curve = CURVES[type];
  if (curve) {
    return (
      fields.length === 3 && fields[1].toString('latin1') === curve.name && fields[2].length === curve.pointBytes && fields[2][0] === 0x04 // uncompressed point, as OpenSSH writes and reads it
    );
  }
  return false;
}

function isPositiveMpint(value: Buffer): boolean {
  return value.length > 0 && (value[0] & 0x80) === 0 && value.some((byte) => byte !== 0);
}
