import { CONTROL_CHARACTERS, escapeHtml, unlinkable } from './mail-text';

describe('mail text of customer input', () => {
  it('writes URLs, bare domains and addresses so that no mail client links them', () => {
    expect(unlinkable('Ada, your account is locked, visit https://evil.example/login now')).toBe(
      'Ada, your account is locked, visit https[:]//evil[.]example/login now',
    );
    expect(unlinkable('www.evil.example')).toBe('www[.]evil[.]example');
    expect(unlinkable('go to 203.0.113.7')).toBe('go to 203[.]0[.]113[.]7');
    expect(unlinkable('evil\u3002example and evil\uFF0Eexample')).toBe('evil[.]example and evil[.]example');
    expect(unlinkable('ftp://x')).toBe('ftp[:]//x');
  });

  it('leaves ordinary names alone', () => {
    for (const name of ['Ada Lovelace', 'Dr. Who', 'José Ñúñez', '山田太郎', "O'Brien & Sons"]) expect(unlinkable(name)).toBe(name);
  });

  it('turns control characters and separators into one space', () => {
    expect(unlinkable('Ada\r\n\r\nVisit')).toBe('Ada Visit');
    expect(unlinkable('a\u2028b\u202Ec\u0007d')).toBe('a b c d');
  });

  it('recognises control characters, separators and bidi overrides, not ordinary letters', () => {
    for (const c of ['\n', '\r', '\t', '\u0000', '\u007F', '\u0085', '\u2028', '\u2029', '\u202E', '\u2066'])
      expect({ c, control: CONTROL_CHARACTERS.test(`a${c}b`) }).toEqual({ c, control: true });
    expect(CONTROL_CHARACTERS.test('Ada Lovelace-Byron ✓')).toBe(false);
  });

  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
