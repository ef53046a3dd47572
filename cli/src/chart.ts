/** Eighths of a cell, from empty to full. */
const BLOCKS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

export type Point = [time: number, value: number];

export interface ChartOptions {
  /** Columns of the plot itself (the axis labels come on top). */
  width: number;
  /** Rows of the plot. */
  height: number;
  /** Writes a value with its unit, e.g. `12.5 %` or `3.1 MB/s`. */
  label: (value: number) => string;
}

/**
 * Mean of the points falling in each of `width` equal slices of [start, end]; a slice without a
 * point is null (drawn as a gap, e.g. while the VPS was off).
 */
export function resample(points: Point[], start: number, end: number, width: number): (number | null)[] {
  const sums = new Array<number>(width).fill(0);
  const counts = new Array<number>(width).fill(0);
  const span = Math.max(1, end - start);
  for (const [time, value] of points) {
    const column = Math.min(width - 1, Math.max(0, Math.floor(((time - start) / span) * width)));
    sums[column] += value;
    counts[column] += 1;
  }
  return sums.map((sum, i) => (counts[i] ? sum / counts[i] : null));
}

/**
 * A bar chart of block characters, `height` rows of eight steps each, scaled from 0 to the
 * largest value, the top and bottom rows labelled with their values.
 */
export function barChart(values: (number | null)[], options: ChartOptions): string[] {
  const top = Math.max(0, ...values.map((v) => v ?? 0));
  const scale = top > 0 ? (options.height * 8) / top : 0;
  const eighths = values.map((v) => (v === null ? -1 : Math.round(v * scale)));
  const labels = [options.label(top), options.label(0)];
  const width = Math.max(...labels.map((l) => l.length));
  const rows: string[] = [];
  for (let row = options.height - 1; row >= 0; row--) {
    const label = row === options.height - 1 ? labels[0] : row === 0 ? labels[1] : '';
    const cells = eighths.map((e) => (e < 0 ? ' ' : BLOCKS[Math.max(0, Math.min(8, e - row * 8))])).join('');
    rows.push(`${label.padStart(width)} ┤${cells}`.trimEnd());
  }
  return rows;
}

/** `1.5 kB/s`, `12.3 MB/s`: decimal units, three significant digits. */
export function humanRate(value: number, unit: string): string {
  const prefixes = ['', 'k', 'M', 'G', 'T'];
  let scaled = value;
  let i = 0;
  while (Math.abs(scaled) >= 1000 && i < prefixes.length - 1) {
    scaled /= 1000;
    i++;
  }
  const digits = scaled === 0 || Math.abs(scaled) >= 100 ? 0 : Math.abs(scaled) >= 10 ? 1 : 2;
  return `${scaled.toFixed(digits)} ${prefixes[i]}${unit}`;
}
