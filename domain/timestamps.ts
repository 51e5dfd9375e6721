/** The API's timestamp format: UTC, ISO 8601 without a zone suffix, microsecond precision. */

export function formatTimestamp(date: Date): string {
  // JavaScript dates carry milliseconds; the last three digits of the microseconds are zero.
  return `${date.toISOString().slice(0, 23)}000`;
}

export function formatNullableTimestamp(date: Date | null | undefined): string | null {
  return date ? formatTimestamp(date) : null;
}
