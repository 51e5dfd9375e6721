import { markdownTime, relativeTime, timeElement } from '../../../../api/web/render/times';

const now = new Date('2026-11-23T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('relativeTime', () => {
  it.each([
    [ago(10_000), 'just now'],
    [ago(MINUTE), '1 minute ago'],
    [ago(3 * MINUTE), '3 minutes ago'],
    [ago(44 * MINUTE), '44 minutes ago'],
    [ago(50 * MINUTE), '1 hour ago'],
    [ago(5 * HOUR), '5 hours ago'],
    [ago(DAY), 'yesterday'],
    [ago(3 * DAY), '3 days ago'],
    [ago(30 * DAY), '24 Oct 2026'],
    [new Date(now.getTime() + 5 * MINUTE), 'in 5 minutes'],
    [new Date(now.getTime() + 30_000), 'in under a minute'],
  ])('reads %s as "%s"', (at, text) => {
    expect(relativeTime(at, now)).toBe(text);
  });
});

describe('timeElement', () => {
  it('puts the relative time in a <time> element whose datetime and title give the exact UTC time', () => {
    // The API's own format: UTC without a zone suffix, microseconds.
    expect(timeElement('2026-11-23T11:37:28.290000', now)).toBe(
      '<time datetime="2026-11-23T11:37:28.290Z" title="2026-11-23 11:37:28 UTC">23 minutes ago</time>',
    );
    expect(timeElement(ago(3 * DAY), now)).toBe(
      '<time datetime="2026-11-20T12:00:00.000Z" title="2026-11-20 12:00:00 UTC">3 days ago</time>',
    );
  });
});

describe('markdownTime', () => {
  it('is a readable UTC time, without microseconds', () => {
    expect(markdownTime('2026-11-23T11:37:28.290000')).toBe('2026-11-23 11:37 UTC');
    expect(markdownTime(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02 03:04 UTC');
  });
});
