/** Times as people read them: "3 minutes ago" or a date, with the exact UTC time in the `<time>` element's title. */
import { escapeHtml } from './html';

/** A Date, or a timestamp in the API's format (UTC, ISO 8601 without a zone suffix). */
export type Instant = Date | string;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const calendarDate = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

export function toDate(at: Instant): Date {
  if (at instanceof Date) return at;
  // The API's timestamps are UTC but carry no zone; without one, Date would read them as local time.
  return new Date(/(?:Z|[+-]\d{2}:?\d{2})$/.test(at) ? at : `${at}Z`);
}

/** "just now", "3 minutes ago", "yesterday" (and "in under a minute", "in 2 minutes" ahead); past a week, the date. */
export function relativeTime(at: Date, now: Date): string {
  const elapsed = now.getTime() - at.getTime();
  const size = Math.abs(elapsed);
  const sign = elapsed >= 0 ? -1 : 1;
  if (size < 45 * SECOND) return elapsed >= 0 ? 'just now' : 'in under a minute';
  if (size < 45 * MINUTE) return relative.format(sign * Math.max(1, Math.round(size / MINUTE)), 'minute');
  if (size < 22 * HOUR) return relative.format(sign * Math.round(size / HOUR), 'hour');
  if (size < 7 * DAY) return relative.format(sign * Math.max(1, Math.round(size / DAY)), 'day');
  return calendarDate.format(at);
}

/** "2026-11-23 11:37:28 UTC" */
export function exactTime(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function timeElement(at: Instant, now: Date): string {
  const date = toDate(at);
  return `<time datetime="${date.toISOString()}" title="${escapeHtml(exactTime(date))}">${escapeHtml(relativeTime(date, now))}</time>`;
}

/** For the Markdown renditions, which are read later and elsewhere: the UTC time to the minute. */
export function markdownTime(at: Instant): string {
  return `${toDate(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
