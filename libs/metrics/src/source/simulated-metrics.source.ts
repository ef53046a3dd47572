import { createHash } from 'node:crypto';
import type { MetricsRange, MetricType } from '../metrics-range';
import { MetricsSeries, MetricsSource, MetricsTarget } from './metrics-source';

/** A stable number in [0, 1) for a service and an instant: the same question gets the same answer. */
function noise(seed: string, t: number): number {
  return createHash('sha256').update(`${seed}:${t}`).digest().readUInt32BE(0) / 2 ** 32;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Plausible series for the embedded default (COMPUTE_PROVIDER=simulator): a daily CPU wave with
 * noise, one disk and, as on a real hypervisor, a NIC only where the network mode lets libvirt see
 * it (`bridge`; in `user` mode the NIC is QEMU's own, so `network` has no series). No point lies
 * in the future.
 */
export class SimulatedMetricsSource extends MetricsSource {
  constructor(private readonly networkVisible: boolean) {
    super();
  }

  async read(target: MetricsTarget, types: MetricType[], range: MetricsRange): Promise<MetricsSeries> {
    const now = Date.now() / 1000;
    const times: number[] = [];
    for (let t = range.start; t <= Math.min(range.end, now); t += range.step) times.push(t);
    const seed = target.serviceId;
    const phase = noise(seed, 0) * 2 * Math.PI;
    const wave = (t: number) => 0.5 + 0.5 * Math.sin((2 * Math.PI * t) / 86_400 + phase);
    const make = (f: (t: number) => number): [number, number][] => times.map((t) => [t, round(Math.max(0, f(t)))]);
    const series: MetricsSeries = {};
    if (types.includes('cpu')) series.cpu = make((t) => Math.min(100, 5 + 40 * wave(t) + 15 * noise(seed, t)));
    if (types.includes('disk')) {
      const readIops = (t: number) => 2 + 30 * wave(t) * noise(`${seed}r`, t);
      const writeIops = (t: number) => 1 + 12 * noise(`${seed}w`, t);
      series['disk.0.iops.read'] = make(readIops);
      series['disk.0.iops.write'] = make(writeIops);
      series['disk.0.bandwidth.read'] = make((t) => readIops(t) * 16_384);
      series['disk.0.bandwidth.write'] = make((t) => writeIops(t) * 8192);
    }
    if (types.includes('network') && this.networkVisible) {
      series['network.0.bandwidth.in'] = make((t) => 2000 + 200_000 * wave(t) * noise(`${seed}i`, t));
      series['network.0.bandwidth.out'] = make((t) => 5000 + 600_000 * wave(t) * noise(`${seed}o`, t));
    }
    return series;
  }
}
