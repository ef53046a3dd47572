const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the text form of a UUID (any version, either case): safe to cast to `uuid` in SQL. */
export function isUuidText(text: string): boolean {
  return UUID_TEXT.test(text);
}
