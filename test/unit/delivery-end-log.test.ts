/** A delivery's end is logged as recorded or failed by one rule, for prompts and coding sessions alike. */
import { logDeliveryEnd } from '../../activities/record-outcome';
import type { DeliveryStatus } from '../../domain/deliveries';

describe('logDeliveryEnd', () => {
  it.each<[DeliveryStatus, string]>([
    ['answered', 'delivery recorded'],
    ['cancelled', 'delivery recorded'],
    ['passed', 'delivery recorded'],
    ['failed', 'delivery recorded'],
    ['error', 'delivery failed'],
    ['timeout', 'delivery failed'],
  ])('logs a delivery that ended %s as "%s", at info', (status, message) => {
    const lines: Array<[string, Record<string, unknown>]> = [];
    logDeliveryEnd(
      { info: (msg, meta) => lines.push([msg, meta ?? {}]) },
      { sessionId: 7, kind: 'sandbox', status },
      'no answer',
    );
    expect(lines).toHaveLength(1);
    const [msg, meta] = lines[0]!;
    expect(msg).toBe(message);
    expect(meta).toMatchObject({ sessionId: 7, kind: 'sandbox', status });
    // Only a failure carries the error.
    expect('error' in meta).toBe(message === 'delivery failed');
  });
});
