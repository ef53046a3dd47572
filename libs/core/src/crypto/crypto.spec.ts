import { AppConfig } from '../config/app-config';
import { SecretBox } from './secret-box';
import { UrlSigner } from './url-signer';

const config = { encryptionKey: Buffer.alloc(32, 3), signingSecret: 'x'.repeat(40) } as AppConfig;

describe('SecretBox', () => {
  const box = new SecretBox(config);
  it('round-trips and never repeats a ciphertext', () => {
    const a = box.seal('s3cr3t');
    expect(a).not.toContain('s3cr3t');
    expect(box.seal('s3cr3t')).not.toBe(a);
    expect(box.open(a)).toBe('s3cr3t');
  });
  it('refuses a tampered ciphertext or another key', () => {
    const sealed = box.seal('s3cr3t');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox({ ...config, encryptionKey: Buffer.alloc(32, 4) } as AppConfig).open(sealed)).toThrow();
  });
});

describe('UrlSigner', () => {
  const signer = new UrlSigner(config);
  const inAMinute = () => new Date(Date.now() + 60_000);
  it('verifies its own token for the same purpose only', () => {
    const token = signer.sign('upload', { id: 'a' }, inAMinute());
    expect(signer.verify('upload', token)).toMatchObject({ id: 'a' });
    expect(signer.verify('download', token)).toBeNull();
  });
  it('refuses expired, tampered and foreign tokens', () => {
    expect(signer.verify('upload', signer.sign('upload', { id: 'a' }, new Date(Date.now() - 1000)))).toBeNull();
    const [body, mac] = signer.sign('upload', { id: 'a' }, inAMinute()).split('.');
    const forged = Buffer.from(JSON.stringify({ id: 'b', exp: 9999999999 })).toString('base64url');
    expect(signer.verify('upload', `${forged}.${mac}`)).toBeNull();
    const otherFirst = mac.startsWith('x') ? 'y' : 'x';
    expect(signer.verify('upload', `${body}.${otherFirst}${mac.slice(1)}`)).toBeNull();
    expect(new UrlSigner({ ...config, signingSecret: 'y'.repeat(40) } as AppConfig).verify('upload', `${body}.${mac}`)).toBeNull();
    expect(signer.verify('upload', 'garbage')).toBeNull();
  });
});
