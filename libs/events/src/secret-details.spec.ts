import { assertNoSecrets, secretPaths } from './secret-details';

describe('secret details', () => {
  it.each([
    ['password', { password: 'x' }],
    ['newPassword', { newPassword: 'x' }],
    ['refreshToken', { refreshToken: 'x' }],
    ['accessToken', { accessToken: 'x' }],
    ['key', { key: 'hk_live_x' }],
    ['apiKey', { apiKey: 'x' }],
    ['totpSecret', { totpSecret: 'x' }],
    ['code', { code: '123456' }],
    ['recoveryCodes', { recoveryCodes: ['x'] }],
    ['resetToken', { resetToken: 'x' }],
    ['secretAccessKey', { secretAccessKey: 'x' }],
    ['console password, nested', { console: { password: 'x' } }],
    ['in an array', { items: [{ ok: 1 }, { mfaToken: 'x' }] }],
  ])('finds %s', (_, details) => {
    expect(secretPaths(details).length).toBeGreaterThan(0);
    expect(() => assertNoSecrets('test.action', details)).toThrow(/may not carry secrets/);
  });

  it('lets the facts the areas record through', () => {
    const details = {
      name: 'laptop',
      prefix: 'hk_live_ab12',
      fingerprint: 'SHA256:abc',
      scopes: ['read'],
      expiresAt: null,
      actionId: '1',
      type: 'stop',
      errorCode: 'hypervisor_unavailable',
      errorMessage: 'm',
      reason: 'wrong_password',
      secondFactor: true,
      from: 'active',
      to: 'suspended',
      subject: 'Disk',
      attachments: 0,
      messageId: 'x',
      issued: true,
      nameChanged: true,
      emailChangeRequested: false,
    };
    expect(secretPaths(details)).toEqual([]);
  });
});
