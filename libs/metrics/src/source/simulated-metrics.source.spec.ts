import { SimulatedMetricsSource } from './simulated-metrics.source';

const target = { serviceId: '0f8b6c3e-5a1d-4c2e-9b7a-1d2e3f4a5b6c', region: 'eu-central' };
const end = Math.floor(Date.now() / 1000);
const range = { start: end - 3600, end, step: 60 };

describe('simulated metrics', () => {
  it('gives the same plausible series for the same question', async () => {
    const source = new SimulatedMetricsSource(false);
    const series = await source.read(target, ['cpu', 'disk', 'network'], range);
    expect(Object.keys(series).sort()).toEqual([
      'cpu',
      'disk.0.bandwidth.read',
      'disk.0.bandwidth.write',
      'disk.0.iops.read',
      'disk.0.iops.write',
    ]);
    expect(series.cpu).toHaveLength(61);
    expect(series.cpu.every(([t, v]) => t >= range.start && t <= range.end && v >= 0 && v <= 100)).toBe(true);
    expect(await source.read(target, ['cpu', 'disk', 'network'], range)).toEqual(series);
  });

  it('has network series where the hypervisor sees the NIC (bridge mode), and no future points', async () => {
    const series = await new SimulatedMetricsSource(true).read(target, ['network'], { ...range, end: end + 3600 });
    expect(Object.keys(series)).toEqual(['network.0.bandwidth.in', 'network.0.bandwidth.out']);
    expect(series['network.0.bandwidth.in'].length).toBeLessThanOrEqual(61);
    expect(series['network.0.bandwidth.in'].every(([, v]) => v > 0)).toBe(true);
  });
});
