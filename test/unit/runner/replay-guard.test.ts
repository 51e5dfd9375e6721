import { signatureHeaders } from '../../../runner/src/signing';
import { ReplayGuard } from '../../../runner/src/replay-guard';

const secret = 'agsec_replay_guard_secret';
const T0 = 1_800_000_000;

function guardAt(clock: { now: number }, toleranceSeconds = 300): ReplayGuard {
  return new ReplayGuard({ secret, toleranceSeconds, now: () => clock.now });
}

function delivery(n: number, timestamp: number): { headers: Record<string, string>; body: Buffer } {
  const body = Buffer.from(
    JSON.stringify({ prompt_id: String(n), prompt: `prompt ${n}`, category: 'chat', deadline_seconds: 30 }),
  );
  return { headers: signatureHeaders(secret, body, { deliveryId: `main-${n}`, timestamp }), body };
}

describe('ReplayGuard', () => {
  it('refuses a repeat until the request would be too old anyway, then forgets it', () => {
    const clock = { now: T0 };
    const guard = guardAt(clock);
    const first = delivery(1, T0);

    expect(guard.admit(first.headers, first.body)).toBeUndefined();
    clock.now = T0 + 299;
    expect(guard.admit(first.headers, first.body)).toEqual({
      status: 409,
      detail: 'this delivery was already received; a replay is refused',
    });
    clock.now = T0 + 301;
    expect(guard.admit(first.headers, first.body)?.status).toBe(401);
    expect(guard.remembered).toBe(0);
  });

  it('keeps a delivery signed ahead of its clock until that timestamp is past the tolerance', () => {
    const clock = { now: T0 };
    const guard = guardAt(clock);
    const ahead = delivery(2, T0 + 200);

    expect(guard.admit(ahead.headers, ahead.body)).toBeUndefined();
    clock.now = T0 + 450;
    expect(guard.admit(ahead.headers, ahead.body)?.status).toBe(409);
    clock.now = T0 + 501;
    expect(guard.admit(ahead.headers, ahead.body)?.status).toBe(401);
  });

  it('remembers only the deliveries of the last window', () => {
    const clock = { now: T0 };
    const guard = guardAt(clock, 60);
    for (let n = 0; n < 1000; n += 1) {
      clock.now = T0 + n;
      const d = delivery(n, clock.now);
      expect(guard.admit(d.headers, d.body)).toBeUndefined();
    }
    // Two keys per delivery (its signature and its id), for the 60 s still inside the window.
    expect(guard.remembered).toBe(2 * 60);
  });

  it('reads the headers in any casing', () => {
    const guard = guardAt({ now: T0 });
    const d = delivery(3, T0);
    const upper = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(guard.admit(upper, d.body)).toBeUndefined();
    expect(guard.admit(d.headers, d.body)?.status).toBe(409);
  });
});
