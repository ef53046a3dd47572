/** ISO 8601 UTC text from PostgreSQL itself (`2026-01-02T03:04:05.678Z`): for raw-SQL rows mapped without Date objects. */
export const isoText = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
