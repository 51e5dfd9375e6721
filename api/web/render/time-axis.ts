/** Ticks for a chart's time axis: a few round UTC instants across a span, each with a short label. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// The Unix epoch was a Thursday: weekly ticks fall on Mondays, four days later.
const MONDAY = 4 * DAY;

const FIXED_STEPS = [1, 2, 5, 10, 15, 30]
  .map((m) => m * MINUTE)
  .concat(
    [1, 2, 3, 6, 12].map((h) => h * HOUR),
    [DAY, 2 * DAY, 7 * DAY, 14 * DAY],
  );
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60];

const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthYear = new Intl.DateTimeFormat('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' });
const hourMinute = (ms: number) => new Date(ms).toISOString().slice(11, 16);

export interface TimeTick {
  at: number;
  label: string;
}

/** At most `most` ticks between `from` and `to` (milliseconds since the epoch). */
export function timeTicks(from: number, to: number, most = 5): TimeTick[] {
  const span = to - from;
  const step = FIXED_STEPS.find((s) => span / s <= most);
  if (step === undefined) return monthTicks(from, to, most);
  const offset = step >= 7 * DAY ? MONDAY : 0;
  const ticks: TimeTick[] = [];
  for (let at = Math.ceil((from - offset) / step) * step + offset; at <= to; at += step) {
    // A tick at midnight within a day's hours names the new day instead.
    const label = step >= DAY || at % DAY === 0 ? dayMonth.format(at) : hourMinute(at);
    ticks.push({ at, label });
  }
  return ticks;
}

function monthTicks(from: number, to: number, most: number): TimeTick[] {
  const start = new Date(from);
  const months =
    (new Date(to).getUTCFullYear() - start.getUTCFullYear()) * 12 +
    new Date(to).getUTCMonth() -
    start.getUTCMonth() +
    1;
  const step = MONTH_STEPS.find((n) => months / n <= most) ?? Math.ceil(months / most);
  const ticks: TimeTick[] = [];
  let month = Math.ceil((start.getUTCFullYear() * 12 + start.getUTCMonth()) / step) * step;
  for (
    let at = Date.UTC(Math.floor(month / 12), month % 12, 1);
    at <= to;
    month += step, at = Date.UTC(Math.floor(month / 12), month % 12, 1)
  ) {
    if (at >= from) ticks.push({ at, label: monthYear.format(at) });
  }
  return ticks;
}
