import { sha512Crypt } from './password-hash';

describe('sha512Crypt', () => {
  it('gives the specification’s test vectors (as crypt(3) and `openssl passwd -6` do)', () => {
    expect(sha512Crypt('Hello world!', 'saltstring')).toBe(
      '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    );
    // Checked with `openssl passwd -6 -salt abcdefgh`: a short password, and one longer than a digest.
    expect(sha512Crypt('a', 'abcdefgh')).toBe(
      '$6$abcdefgh$GjMgmmowSihU3X8xhdMxaCaEziO5NUh/IZqYnnZhN1j7.JYnm2e5BnPfWNUdj17OlEroBdrPtMnfsmwWCrkw70',
    );
    expect(sha512Crypt('x'.repeat(80), 'abcdefgh')).toBe(
      '$6$abcdefgh$Dzi1eFORn5GaxHEbTSad4wmza6fQ294ewWz/i5Ou04kexJUJ0x40GfX0fVHWpIMEtkD0p3BxRE61Ll/n8NuSW0',
    );
    expect(sha512Crypt('', 'saltstring')).toMatch(/^\$6\$saltstring\$[./0-9A-Za-z]{86}$/);
  });

  it('makes a new salt each time, so one password never hashes the same twice', () => {
    const [a, b] = [sha512Crypt('q7Hm2xKpW4tRz9LbN3cV'), sha512Crypt('q7Hm2xKpW4tRz9LbN3cV')];
    expect(a).toMatch(/^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$/);
    expect(a).not.toBe(b);
  });
});
