import type { InstanceMetrics } from '@hosting-account/sdk';
import { drawCharts } from './vps-metrics';

describe('hostctl vps metrics charts', () => {
  const start = Date.parse('2026-11-29T00:00:00Z') / 1000;
  const points = (values: number[]): [number, number][] => values.map((v, i) => [start + i * 60, v]);
  const metrics = (series: InstanceMetrics['series']): InstanceMetrics => ({
    start: new Date(start * 1000).toISOString(),
    end: new Date((start + 3600) * 1000).toISOString(),
    step: 60,
    series,
    unavailable: [],
  });
  // Labels as wide as they get: "12.3 MB/s", "99.5 %", and a rate whose mean has a wider label than its maximum.
  const wide = metrics({
    'disk.0.bandwidth.read': points(Array.from({ length: 60 }, (_, i) => (i % 2 ? 12_345_678 : 999))),
    cpu: points(Array.from({ length: 60 }, (_, i) => (i % 2 ? 100 : 99))),
    'network.0.bandwidth.in': points(Array.from({ length: 60 }, (_, i) => (i % 3 ? 1000 : 998))),
  });

  it.each([80, 120, 200, 201])('keeps every line within %i columns', (columns) => {
    const lines = drawCharts(wide, columns).split('\n');
    const visible = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '').length;
    expect(Math.max(...lines.map(visible))).toBeLessThanOrEqual(columns);
    // And uses the room: the time axis reaches the last few columns.
    expect(Math.max(...lines.map(visible))).toBeGreaterThan(columns - 4);
  });
});
