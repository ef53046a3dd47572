import { BODY_EXCERPT_BYTES, captureBody, captureHeaders, HEADERS_CAP_BYTES } from './response-capture';

describe('captureHeaders', () => {
  it('keeps the headers in order, names in lower case, repeated ones joined', () => {
    expect(captureHeaders(['Content-Type', 'text/plain', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'X-Trace', 't'])).toEqual({
      headers: { 'content-type': 'text/plain', 'set-cookie': 'a=1, b=2', 'x-trace': 't' },
      truncated: false,
    });
  });

  it('leaves out what does not fit in 8 KiB, and says so', () => {
    const big = 'v'.repeat(5000);
    const { headers, truncated } = captureHeaders(['x-one', big, 'x-two', big, 'x-three', 'small']);
    expect({ names: Object.keys(headers), truncated }).toEqual({ names: ['x-one', 'x-three'], truncated: true });
    const size = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    expect(size).toBeLessThanOrEqual(HEADERS_CAP_BYTES);
  });
});

describe('captureBody', () => {
  it('keeps a short text body whole', () => {
    expect(captureBody(Buffer.from('{"error":"down"}\n'), 17)).toEqual({
      body: '{"error":"down"}\n',
      bodyEncoding: 'utf8',
      bodyTruncated: false,
    });
    expect(captureBody(Buffer.alloc(0), 0)).toEqual({ body: '', bodyEncoding: 'utf8', bodyTruncated: false });
  });

  it('keeps the first 4 KiB of a longer one, and says it was cut', () => {
    const long = Buffer.from('a'.repeat(10_000));
    expect(captureBody(long, 70_000)).toEqual({ body: 'a'.repeat(BODY_EXCERPT_BYTES), bodyEncoding: 'utf8', bodyTruncated: true });
  });

  it('leaves out a character the cut splits, and stays text', () => {
    const text = 'a'.repeat(BODY_EXCERPT_BYTES - 1) + 'é and more';
    const { body, bodyEncoding, bodyTruncated } = captureBody(Buffer.from(text), Buffer.byteLength(text));
    expect({ body, bodyEncoding, bodyTruncated }).toEqual({
      body: 'a'.repeat(BODY_EXCERPT_BYTES - 1),
      bodyEncoding: 'utf8',
      bodyTruncated: true,
    });
  });

  it('gives bytes that are not UTF-8 text in base64', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    expect(captureBody(png, png.length)).toEqual({ body: png.toString('base64'), bodyEncoding: 'base64', bodyTruncated: false });
    const withNul = Buffer.from('ok\u0000then');
    expect(captureBody(withNul, withNul.length)).toMatchObject({ bodyEncoding: 'base64' });
  });
});
