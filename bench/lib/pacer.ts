/** Open-loop load: starts `count` calls at a fixed rate whatever the system's answers, as independent clients would. */
import { wallNow } from './clock';

export interface Sent<T> {
  index: number;
  sentAt: number;
  /** When the call resolved (for the API: the 202 arrived). */
  acceptedAt?: number;
  value?: T;
  error?: string;
}

/**
 * Calls `send` `count` times, the i-th at start + i/rate. A closed loop (next call after the last
 * answer) would slow down with the system and hide its queueing; this does not.
 */
export async function paced<T>(
  rate: number,
  count: number,
  send: (index: number) => Promise<T>,
  onSent?: (n: number) => void,
): Promise<Sent<T>[]> {
  const results: Sent<T>[] = [];
  const inFlight: Promise<void>[] = [];
  const start = wallNow();
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(count, Math.floor(((wallNow() - start) * rate) / 1000) + 1);
      for (; next < due; next++) {
        const record: Sent<T> = { index: next, sentAt: wallNow() };
        results.push(record);
        inFlight.push(
          send(next).then(
            (value) => {
              record.acceptedAt = wallNow();
              record.value = value;
            },
            (err: unknown) => {
              record.acceptedAt = wallNow();
              record.error = err instanceof Error ? err.message : String(err);
            },
          ),
        );
      }
      onSent?.(next);
      if (next >= count) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inFlight);
  return results;
}
