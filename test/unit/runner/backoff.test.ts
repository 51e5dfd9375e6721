import { Backoff, pause, retryAfterMs } from '../../../runner/src/backoff';
import { isPing, parseDelivery } from '../../../runner/src/payload';

describe('Backoff', () => {
  it('doubles from 0.5 s up to the 30 s cap, and starts over after reset', () => {
    const backoff = new Backoff({ random: () => 1 });
    const delays = Array.from({ length: 9 }, () => backoff.nextDelayMs());
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    backoff.reset();
    expect(backoff.nextDelayMs()).toBe(500);
  });

  it('picks each delay at random below the cap (full jitter)', () => {
    const backoff = new Backoff({ random: () => 0.25 });
    expect([backoff.nextDelayMs(), backoff.nextDelayMs(), backoff.nextDelayMs()]).toEqual([125, 250, 500]);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta seconds and HTTP dates', () => {
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });
});

describe('pause', () => {
  it('ends early when stopped', async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 20);
    await pause(10_000, stop.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('parseDelivery', () => {
  it('keeps every field and the raw text for the command', () => {
    const raw =
      '{"prompt_id":"p-1","prompt":"Hi","category":"chat","deadline_seconds":60,"kind":"main","work_id":"main-4","extra":true}';
    const parsed = parseDelivery(raw);
    expect(parsed).toEqual({ ok: true, delivery: { raw, payload: JSON.parse(raw) } });
  });

  it('refuses what is not a prompt', () => {
    expect(parseDelivery('nope')).toEqual({ ok: false, reason: 'body is not JSON' });
    expect(parseDelivery('[]')).toEqual({ ok: false, reason: 'body is not a JSON object' });
    expect(parseDelivery('{"prompt_id":"p"}')).toEqual({ ok: false, reason: 'prompt is missing or not a string' });
    expect(parseDelivery('{"prompt_id":"p","prompt":"x","deadline_seconds":0}')).toEqual({
      ok: false,
      reason: 'deadline_seconds is not a positive number',
    });
  });

  it('recognises the connectivity ping', () => {
    const ping = parseDelivery('{"prompt_id":"ping-3","prompt":"ping","category":"ping","deadline_seconds":15}');
    const prompt = parseDelivery('{"prompt_id":"p-3","prompt":"ping","category":"chat","deadline_seconds":15}');
    expect(ping.ok && isPing(ping.delivery.payload)).toBe(true);
    expect(prompt.ok && isPing(prompt.delivery.payload)).toBe(false);
  });
});
