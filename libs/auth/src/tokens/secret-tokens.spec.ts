import { hashRecoveryCode, newRecoveryCode, newSecretToken } from './secret-tokens';

describe('secret tokens and recovery codes', () => {
  it('makes prefixed tokens whose stored hash is not the token', () => {
    const { token, hash } = newSecretToken('hpr_');
    expect(token).toMatch(/^hpr_[A-Za-z0-9_-]{43}$/);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecretToken('hpr_').token).not.toBe(token);
  });

  it('makes recovery codes of an unambiguous alphabet, hashed regardless of case, dashes and spaces', () => {
    const code = newRecoveryCode();
    expect(code).toMatch(/^[a-hj-km-np-z2-9]{5}-[a-hj-km-np-z2-9]{5}$/);
    expect(hashRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(hashRecoveryCode(code));
    expect(hashRecoveryCode(code)).not.toBe(hashRecoveryCode(newRecoveryCode()));
  });
});
