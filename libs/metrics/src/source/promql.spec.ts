import { domainSelector, metricsQuery, rateWindow } from './promql';

const id = '0f8b6c3e-5a1d-4c2e-9b7a-1d2e3f4a5b6c';

describe('PromQL of a VPS', () => {
  it('selects the domain of the service id and nothing else', () => {
    expect(domainSelector(id)).toBe(`{domain="svc-${id}"}`);
    const query = metricsQuery(id, ['cpu', 'disk', 'network'], 10);
    const selectors = [...query.matchAll(/\{[^}]*\}/g)].map(([s]) => s);
    expect(selectors.length).toBe(8);
    expect(new Set(selectors)).toEqual(new Set([`{domain="svc-${id}"}`]));
  });

  it.each(['svc-x"} or vector(1) or {a="', `${id}"}`, `${id.toUpperCase()}`, '.*', '', `${id}\n`])(
    'refuses %j as a service id',
    (hostile) => {
      expect(() => metricsQuery(hostile, ['cpu'], 10)).toThrow('not a service id');
    },
  );

  it('asks only for the types asked, each series named, in one expression', () => {
    expect(metricsQuery(id, ['cpu'], 10)).toBe(
      `label_replace(clamp_max(100 * sum(rate(libvirt_domain_info_cpu_time_seconds_total{domain="svc-${id}"}[60s])) / max(libvirt_domain_info_virtual_cpus{domain="svc-${id}"}), 100), "series", "cpu", "", "")`,
    );
    const disk = metricsQuery(id, ['disk'], 300);
    expect([...disk.matchAll(/"series", "([a-z.]+)"/g)].map(([, name]) => name)).toEqual([
      'disk.iops.read',
      'disk.iops.write',
      'disk.bandwidth.read',
      'disk.bandwidth.write',
    ]);
    expect(disk).toContain('sum by (target_device) (rate(libvirt_domain_block_stats_read_requests_total');
    expect(disk).toContain('[300s]');
    expect(disk).not.toContain('cpu');
    expect(metricsQuery(id, ['network'], 10).split(' or ')).toHaveLength(2);
  });

  it('rates over a step, and never less than a minute', () => {
    expect([rateWindow(1), rateWindow(60), rateWindow(3600)]).toEqual([60, 60, 3600]);
  });
});
