import { attachmentProblem, sanitizeFilename } from './attachment-rules';

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\shot.png', 'shot.png'],
    ['  spaced name.txt  ', 'spaced name.txt'],
    ['bad\u0000name\u0007.log', 'badname.log'],
    ['\u202egnp.exe', 'gnp.exe'],
  ])('%j becomes %j', (input, output) => expect(sanitizeFilename(input)).toBe(output));

  it.each(['', '   ', '/', 'dir/', '..', '\u0000', 'x'.repeat(256)])('refuses %j', (input) => expect(sanitizeFilename(input)).toBeNull());
});

describe('attachmentProblem', () => {
  it.each([
    ['a.png', 'image/png'],
    ['a.JPG', 'image/jpeg'],
    ['server.log', 'text/plain'],
    ['server.log', 'text/x-log'],
    ['logs.zip', 'application/zip'],
    ['doc.pdf', 'application/pdf'],
  ])('accepts %s as %s', (name, type) => expect(attachmentProblem(name, type)).toBeNull());

  it.each([
    ['a.exe', 'application/octet-stream', /not accepted/],
    ['a.html', 'text/html', /not accepted/],
    ['a.exe', 'image/png', /must end in .png/],
    ['png', 'image/png', /must end in/],
    ['a.png.exe', 'image/png', /must end in/],
  ])('refuses %s as %s', (name, type, reason) => expect(attachmentProblem(name, type)).toMatch(reason));
});
