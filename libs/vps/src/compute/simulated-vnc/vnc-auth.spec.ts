import { desEncrypt, vncKey, vncResponse, vncResponseMatches } from './vnc-auth';

describe('VNC authentication', () => {
  it('encrypts the standard single-DES test vector', () => {
    const out = desEncrypt(Buffer.from('133457799BBCDFF1', 'hex'), Buffer.from('0123456789ABCDEF', 'hex'));
    expect(out.toString('hex').toUpperCase()).toBe('85E813540F0AB405');
  });

  it('reverses the bits of each password byte and pads the key with zeros', () => {
    // 'a' = 0x61 = 01100001 -> 10000110 = 0x86; '1' = 0x31 = 00110001 -> 10001100 = 0x8c
    expect(vncKey('a1').toString('hex')).toBe('868c000000000000');
    expect(vncKey('123456789').equals(vncKey('12345678'))).toBe(true);
  });

  it('answers a challenge block by block, and only the right password matches', () => {
    const challenge = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const response = vncResponse('h7Qm2xKp', challenge);
    expect(response).toHaveLength(16);
    expect(response.subarray(0, 8).equals(desEncrypt(vncKey('h7Qm2xKp'), challenge.subarray(0, 8)))).toBe(true);
    expect(vncResponseMatches('h7Qm2xKp', challenge, response)).toBe(true);
    expect(vncResponseMatches('h7Qm2xKq', challenge, response)).toBe(false);
    expect(vncResponseMatches('h7Qm2xKp', challenge, response.subarray(0, 8))).toBe(false);
  });
});
