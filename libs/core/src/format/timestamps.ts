/** A Date as the API writes every timestamp (the format `isoText` gives in SQL); null stays null. */
export function isoTimestamp(date: Date): string;
export function isoTimestamp(date: Date | null): string | null;
export function isoTimestamp(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
