import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePublicKey } from './public-key-parser';

const fixtures = join(__dirname, '../../../test/fixtures/ssh');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const fingerprints = Object.fromEntries(
  read('fingerprints.txt')
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([file, bits, fp]) => [file, { bits: Number(bits), fp }]),
);
const [edType, edData] = read('ed25519.pub').trim().split(' ');
const edBlob = Buffer.from(edData, 'base64');
const [ecType, ecData] = read('ecdsa256.pub').trim().split(' ');
const ecBlob = Buffer.from(ecData, 'base64');
const line = (type: string, blob: Buffer) => `${type} ${blob.toString('base64')} x`;
const flipLastByte = (blob: Buffer) => Buffer.concat([blob.subarray(0, -1), Buffer.from([blob[blob.length - 1] ^ 1])]);
/** The ed25519 blob with a 31-byte key: well framed, wrong length. */
const shortEd = Buffer.concat([edBlob.subarray(0, edBlob.length - 36), Buffer.from([0, 0, 0, 31]), edBlob.subarray(edBlob.length - 31)]);
/** The nistp256 blob that names the curve nistp384 inside (same lengths). */
const wrongCurve = Buffer.from(ecBlob.toString('latin1').replace('\x00\x00\x00\x08nistp256', '\x00\x00\x00\x08nistp384'), 'latin1');

describe('parsePublicKey', () => {
  it.each([
    ['ed25519.pub', 'ssh-ed25519'],
    ['ecdsa256.pub', 'ecdsa-sha2-nistp256'],
    ['ecdsa384.pub', 'ecdsa-sha2-nistp384'],
    ['ecdsa521.pub', 'ecdsa-sha2-nistp521'],
    ['rsa2048.pub', 'ssh-rsa'],
    ['rsa4096.pub', 'ssh-rsa'],
  ])('accepts %s with the bits and fingerprint ssh-keygen -l gives', (file, type) => {
    const parsed = parsePublicKey(read(file));
    expect(parsed).toMatchObject({ type, bits: fingerprints[file].bits, fingerprint: fingerprints[file].fp });
    expect(parsed.publicKey).toBe(read(file).trim());
  });

  it('reads blanks, comment lines and comments as OpenSSH does', () => {
    expect(parsePublicKey(`  \n${edType}\t ${edData}   my laptop key \r\n`).publicKey).toBe(`${edType} ${edData} my laptop key`);
    expect(parsePublicKey(`# work laptop\n\n${edType} ${edData}\n`).publicKey).toBe(`${edType} ${edData}`);
    // The comment is the rest of the line, inner blanks kept (ssh-keygen -l shows it so).
    expect(parsePublicKey(`${edType} ${edData} a  b\tc`).publicKey).toBe(`${edType} ${edData} a  b\tc`);
    expect(parsePublicKey(`${edType} ${edData}`).publicKey).toBe(`${edType} ${edData}`);
  });

  it('stores canonical base64 (OpenSSH also reads the key without its padding)', () => {
    const parsed = parsePublicKey(`${ecType} ${ecData.replace(/=+$/, '')}`);
    expect(parsed.publicKey).toBe(`${ecType} ${ecData}`);
    expect(parsed.fingerprint).toBe(fingerprints['ecdsa256.pub'].fp);
  });

  it.each([
    ['1024-bit RSA', () => read('rsa1024.pub'), /at least 2048 bits \(this one has 1024\)/],
    ['DSA', () => read('dsa.pub'), /DSA keys are not accepted/],
    ['truncated base64', () => read('ed25519.pub').slice(0, 40), /truncated or corrupt/],
    ['a wrong type prefix', () => read('ed25519.pub').replace('ssh-ed25519', 'ssh-rsa'), /is a "ssh-ed25519" key, not "ssh-rsa"/],
    ['trailing bytes in the key data', () => line(edType, Buffer.concat([edBlob, Buffer.from([1, 2, 3])])), /truncated or corrupt/],
    ['an ed25519 key of 31 bytes', () => line(edType, shortEd), /truncated or corrupt/],
    ['an ECDSA point off its curve', () => line(ecType, flipLastByte(ecBlob)), /truncated or corrupt/],
    ['an ECDSA blob naming another curve', () => line(ecType, wrongCurve), /truncated or corrupt/],
    ['a certificate', () => read('ed25519-cert.pub'), /certificates are not accepted/],
    ['an RFC 4716 public key', () => read('ed25519.rfc4716.pub'), /ssh-keygen -i -f/],
    ['a PEM public key', () => '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----', /ssh-keygen -i -m PKCS8/],
    ['authorized_keys options', () => `from="10.0.0.1",no-pty ${read('ed25519.pub')}`, /options .* are not accepted/],
    ['an unknown type', () => 'ssh-foo AAAA', /unsupported key type "ssh-foo"/],
    ['not base64', () => 'ssh-ed25519 !!!!', /not valid base64/],
    ['control characters', () => `${edType} ${edData} evil\x1b[31m`, /a control or invisible character \(U\+001B\)/],
    ['empty input', () => '   ', /expected OpenSSH format/],
    ['only a comment line', () => '# nothing here', /expected OpenSSH format/],
    ['a type without key data', () => 'ssh-ed25519', /expected OpenSSH format/],
    ['two keys', () => `${read('ed25519.pub').trim()}\n${read('rsa2048.pub').trim()}`, /single line/],
    ['an oversized input', () => `${edType} ${'A'.repeat(17_000)}`, /longer than 16384/],
  ])('refuses %s with a reason', (_name, input, reason) => {
    expect(() => parsePublicKey(input())).toThrow(reason);
  });

  // Characters cloud-init's YAML reader refused (so no key was installed), or that read as a line
  // break or hide what a comment says.
  it.each([
    ['a C1 control', '\x80', 'U+0080'],
    ['NEL', '\x85', 'U+0085'],
    ['CSI', '\x9b', 'U+009B'],
    ['DEL', '\x7f', 'U+007F'],
    ['U+FFFE', '\ufffe', 'U+FFFE'],
    ['U+FFFF', '\uffff', 'U+FFFF'],
    ['a noncharacter', '\ufdd0', 'U+FDD0'],
    ['a noncharacter above the BMP', '\u{10fffe}', 'U+10FFFE'],
    ['a byte order mark', '\ufeff', 'U+FEFF'],
    ['a line separator', '\u2028', 'U+2028'],
    ['a paragraph separator', '\u2029', 'U+2029'],
    ['a bidi override', '\u202e', 'U+202E'],
    ['a lone high surrogate', '\ud800', 'U+D800'],
    ['a lone low surrogate', '\udfff', 'U+DFFF'],
  ])('refuses %s in the comment, naming it', (_name, char, codePoint) => {
    expect(() => parsePublicKey(`${edType} ${edData} laptop${char}key`)).toThrow(`a control or invisible character (${codePoint})`);
  });

  it('keeps letters of any script and emoji in a comment, and reads a .pub file saved with a byte order mark', () => {
    expect(parsePublicKey(`${edType} ${edData} Jürgen@Büro 😀 東京`).publicKey).toBe(`${edType} ${edData} Jürgen@Büro 😀 東京`);
    expect(parsePublicKey(`\ufeff${edType} ${edData} x\r\n`).publicKey).toBe(`${edType} ${edData} x`);
  });

  it.each(['ed25519.private-key-for-tests', 'rsa.pem.private-key-for-tests'])('refuses the private key %s without repeating it', (file) => {
    const privateKey = read(file);
    for (const input of [privateKey, privateKey.split('\n').slice(1, -2).join('')]) {
      let message = '';
      try {
        parsePublicKey(input);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/private key|expected OpenSSH format/);
      for (const secretLine of privateKey.split('\n').filter((l) => !l.startsWith('-----') && l.length > 8)) {
        expect(message).not.toContain(secretLine.slice(0, 8));
      }
    }
  });
});
