import { consoleUrlBase } from './console.service';

describe('console URL', () => {
  it('is ws:// on an http PUBLIC_URL and wss:// on an https one, on the same host, port and path', () => {
    expect(consoleUrlBase('http://127.0.0.1:3000')).toBe('ws://127.0.0.1:3000');
    expect(consoleUrlBase('https://api.example.com')).toBe('wss://api.example.com');
    expect(consoleUrlBase('https://example.com/hosting')).toBe('wss://example.com/hosting');
  });
});
