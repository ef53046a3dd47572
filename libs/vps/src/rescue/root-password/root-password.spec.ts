import { ROOT_PASSWORD_PATTERN, rootPassword } from './root-password';

describe('rootPassword', () => {
  it('is 20 characters of the unambiguous alphabet, new each time', () => {
    const passwords = Array.from({ length: 200 }, rootPassword);
    for (const password of passwords) expect(password).toMatch(ROOT_PASSWORD_PATTERN);
    expect(new Set(passwords).size).toBe(passwords.length);
    expect(passwords.join('')).not.toMatch(/[0O1lI]/);
  });
});
