import { Command, InvalidArgumentError, Option } from 'commander';
import { InstanceMetrics, instanceMetrics, MetricPoint, metricUnit } from '@hosting-account/sdk';
import { examples, session } from '../command-context';
import { barChart, humanRate, resample } from '../chart';
import { format, paint, printData } from '../output';
import { resolveServiceId } from '../service-ref';

const SINCE = /^(\d{1,4})(m|h|d)$/;
const UNIT_SECONDS = { m: 60, h: 3600, d: 86_400 } as const;

/** `90m`, `6h`, `7d` in seconds: a usage error for anything else or beyond the API's 30 days. */
export function parseSince(value: string): number {
  const match = SINCE.exec(value);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS] : 0;
  if (!match || seconds < 60 || seconds > 30 * 86_400)
    throw new InvalidArgumentError('must be a duration such as 30m, 6h or 7d, at most 30d');
  return seconds;
}

function parseTypes(value: string): string {
  if (!/^(cpu|disk|network)(,(cpu|disk|network)){0,2}$/.test(value))
    throw new InvalidArgumentError('must be cpu, disk, network or a comma-separated list of them');
  return value;
}

const label = (name: string) => (value: number) => {
  const unit = metricUnit(name);
  return unit === 'B/s' ? humanRate(value, 'B/s') : `${value.toFixed(value >= 100 ? 0 : 1)} ${unit}`;
};

const clock = (seconds: number) => new Date(seconds * 1000).toISOString().slice(5, 16).replace('T', ' ');

/** One chart per series with its last and largest value, then what is unavailable. */
export function drawCharts(metrics: InstanceMetrics, columns: number): string {
  const [start, end] = [Date.parse(metrics.start) / 1000, Date.parse(metrics.end) / 1000];
  const out: string[] = [];
  for (const [name, points] of Object.entries(metrics.series) as [string, MetricPoint[]][]) {
    const toLabel = label(name);
    const values = points.map(([, v]) => v);
    // The widest line is the time axis under the bars: the labels' margin, the bars, ' UTC' after them.
    const draw = (width: number) => {
      const rows = barChart(resample(points, start, end, width), { width, height: 6, label: toLabel });
      const margin = rows[0].indexOf('┤');
      const axis = `${' '.repeat(margin)}${clock(start)}${' '.repeat(Math.max(1, width + 1 - 2 * clock(start).length))}${clock(end)} UTC`;
      return { rows, axis, widest: Math.max(axis.length, ...rows.map((row) => row.length)) };
    };
    // The labels' width depends on the values drawn: once drawn, narrow the bars by what overflows.
    let width = Math.max(10, columns - 14);
    let chart = draw(width);
    while (chart.widest > columns && width > 10) {
      width = Math.max(10, width - (chart.widest - columns));
      chart = draw(width);
    }
    out.push(`${paint(name, 'bold')}  last ${toLabel(values.at(-1) ?? 0)}, max ${toLabel(Math.max(0, ...values))}`, ...chart.rows);
    out.push(chart.axis, '');
  }
  for (const type of metrics.unavailable) {
    out.push(
      paint(`${type}: no data for this VPS over this range`, 'dim') +
        (type === 'network' ? paint(' (off, or on a network interface the hypervisor cannot count)', 'dim') : ''),
    );
  }
  return out.join('\n') + '\n';
}

export function metricsCommand(): Command {
  return new Command('metrics')
    .description('Draw the CPU, disk and network graphs of a VPS (-o json for the numbers)')
    .argument('<id>', 'service id of the VPS, or its name')
    .addOption(
      new Option('--type <types>', 'cpu, disk, network or a comma-separated list').default('cpu,disk,network').argParser(parseTypes),
    )
    .addOption(new Option('--since <duration>', 'how far back: 30m, 6h, 7d (at most 30d)').default(3600, '1h').argParser(parseSince))
    .addHelpText(
      'after',
      "\nCPU is in percent of all the VPS's vCPUs, disk and network bandwidth in bytes/s, disk iops in operations/s.\n" +
        examples(
          'hostctl vps metrics web-01',
          'hostctl vps metrics web-01 --type cpu --since 6h',
          'hostctl vps metrics 4f0c2a8e-... --since 7d -o json',
        ),
    )
    .action(async (reference: string, options: { type: string; since: number }, command: Command) => {
      const { api, out } = session(command);
      const id = await resolveServiceId(api, reference, 'vps');
      const end = new Date();
      const start = new Date(end.getTime() - options.since * 1000);
      const metrics = await instanceMetrics(api, id, { type: options.type, start: start.toISOString(), end: end.toISOString() });
      if (format(out) !== 'table') printData(metrics, format(out));
      else process.stdout.write(drawCharts(metrics, process.stdout.columns ?? 80));
    });
}
