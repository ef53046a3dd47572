import { toYaml } from './yaml';
import { UsageError } from './errors';

export type Format = 'table' | 'json' | 'yaml';
export const FORMATS: Format[] = ['table', 'json', 'yaml'];

export interface OutputOptions {
  output?: string;
  header?: boolean;
}

/** A column of a table: its heading and how to read it from a row. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Status-like columns are coloured on a terminal. */
  status?: boolean;
}

/** Table columns as the fields of one object: `LAST USED` becomes `Last used`; `ID` stays. */
export function asFields<T>(columns: Column<T>[]): Column<T>[] {
  return columns.map((c) => ({ ...c, header: c.header.length <= 2 ? c.header : c.header.charAt(0) + c.header.slice(1).toLowerCase() }));
}

export function format(options: OutputOptions): Format {
  const value = (options.output ?? 'table') as Format;
  if (!FORMATS.includes(value)) throw new UsageError(`unknown output format "${options.output}" (use ${FORMATS.join(', ')})`);
  return value;
}

/** Colours only on a terminal, never with NO_COLOR (https://no-color.org), whatever its value. */
export function colours(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && process.env.NO_COLOR === undefined && process.env.TERM !== 'dumb';
}

const GREEN = new Set(['running', 'active', 'succeeded', 'open', 'answered', 'info', 'applied', 'attached']);
const YELLOW = new Set([
  'starting',
  'stopping',
  'provisioning',
  'pending',
  'customer_reply',
  'warning',
  'suspended',
  'attaching',
  'detaching',
  'resizing',
]);
const RED = new Set(['stopped', 'error', 'failed', 'cancelled', 'terminated', 'closed', 'critical']);

export function paint(text: string, style: 'bold' | 'green' | 'yellow' | 'red' | 'dim', stream?: NodeJS.WriteStream): string {
  if (!colours(stream)) return text;
  const codes = { bold: [1, 22], green: [32, 39], yellow: [33, 39], red: [31, 39], dim: [2, 22] }[style];
  return `\u001b[${codes[0]}m${text}\u001b[${codes[1]}m`;
}

function paintStatus(text: string): string {
  if (GREEN.has(text)) return paint(text, 'green');
  if (YELLOW.has(text)) return paint(text, 'yellow');
  if (RED.has(text)) return paint(text, 'red');
  return text;
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Data as JSON or YAML for scripts, or as the table a person reads. */
export function printList<T>(rows: T[], columns: Column<T>[], options: OutputOptions): void {
  const kind = format(options);
  if (kind !== 'table') return printData(rows, kind);
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(options.header === false ? 0 : column.header.length, ...cells.map((r) => r[i].length)),
  );
  const line = (values: string[], style: (text: string, i: number) => string) =>
    values
      .map((v, i) => (i === values.length - 1 ? style(v, i) : style(v, i) + ' '.repeat(widths[i] - v.length)))
      .join('   ')
      .trimEnd();
  const out: string[] = [];
  if (options.header !== false)
    out.push(
      line(
        columns.map((c) => c.header),
        (text) => paint(text, 'bold'),
      ),
    );
  for (const r of cells) out.push(line(r, (text, i) => (columns[i].status ? paintStatus(text) : text)));
  if (out.length) process.stdout.write(out.join('\n') + '\n');
}

/** One object: JSON/YAML, or "Field: value" lines on a terminal. */
export function printObject<T>(item: T, fields: Column<T>[], options: OutputOptions): void {
  const kind = format(options);
  if (kind !== 'table') return printData(item, kind);
  const width = Math.max(...fields.map((f) => f.header.length)) + 1;
  const lines = fields.map((f) => {
    const value = cell(f.value(item));
    return `${(f.header + ':').padEnd(width)}  ${f.status ? paintStatus(value) : value}`;
  });
  process.stdout.write(lines.join('\n') + '\n');
}

export function printData(data: unknown, kind: Format): void {
  process.stdout.write(kind === 'yaml' ? toYaml(data) : JSON.stringify(data, null, 2) + '\n');
}

/** A confirmation for people; in JSON/YAML mode the data itself is printed instead. */
export function printDone<T>(message: string, data: T, options: OutputOptions): void {
  const kind = format(options);
  if (kind === 'table') process.stdout.write(message + '\n');
  else printData(data ?? {}, kind);
}
