import { addressClass, isPublicAddress } from './address-policy';
import { retryDelaySeconds } from './retry-schedule';
import { urlProblem } from './webhook-url';

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressClass(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('endpoint URLs', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  it.each([
    ['http://hooks.example.com/', 'must use https'],
    ['ftp://hooks.example.com/', 'must use https'],
    ['https://user:pw@hooks.example.com/', 'may not carry credentials'],
    ['not a url', 'must be an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ['https://127.0.0.1/hook', 'may not point at a loopback address'],
    ['https://[::ffff:10.0.0.1]/hook', 'may not point at a private address'],
    ['https://169.254.169.254/latest/meta-data', 'may not point at a linkLocal address'],
  ])('refuses %s', (url, problem) => {
    expect(urlProblem(url, strict)).toBe(problem);
  });

  it('accepts https host names (checked again at each attempt) and, with the flags, http and loopback', () => {
    expect(urlProblem('https://hooks.example.com/x?y=1', strict)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/', { allowHttp: true, allowPrivate: true })).toBeNull();
  });
});

describe('retry schedule', () => {
  it('doubles from the base with ±20% jitter, capped at 6 hours', () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySeconds(n, 30, () => 0.5))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(1, 30, () => 0)).toBe(24);
    expect(retryDelaySeconds(1, 30, () => 1)).toBe(36);
    expect(retryDelaySeconds(30, 30, () => 0.5)).toBe(6 * 3600);
  });
});
