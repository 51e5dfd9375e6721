/** The lines a person at a terminal reads: time, level, process and a short message, secrets still redacted. */
import { PassThrough } from 'node:stream';
import { createLogger, humanMessage, prettyStream, resolveLogFormat } from '../../infra/logging';

describe('resolveLogFormat', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('LOG_FORMAT %s on a terminal: %s gives %s', (configured, tty, format) => {
    expect(resolveLogFormat(configured, tty)).toBe(format);
  });
});

describe('humanMessage', () => {
  const message = (fields: Record<string, unknown>) => humanMessage(fields, 'msg');

  it('names a delivery by its id, with its outcome, time and error', () => {
    expect(message({ msg: 'delivery recorded', kind: 'gym', sessionId: 12, status: 'answered', latencyMs: 840 })).toBe(
      'delivery recorded: gym-12 answered in 840 ms',
    );
    expect(
      message({
        msg: 'delivery failed',
        kind: 'main',
        sessionId: 9,
        status: 'timeout',
        latencyMs: 300000,
        error: 'no answer',
      }),
    ).toBe('delivery failed: main-9 timeout in 300000 ms: no answer');
  });

  it('gives a request as its method and address, and its answer as status and time, tied by the request id', () => {
    const reqId = '52298ca0-3001-4932-916b-27149a1b4c01';
    expect(message({ msg: 'incoming request', reqId, req: { method: 'GET', url: '/health' } })).toBe(
      '[52298ca0] GET /health',
    );
    expect(message({ msg: 'request completed', reqId, res: { statusCode: 200 }, responseTime: 3.6 })).toBe(
      '[52298ca0] 200 in 4 ms',
    );
  });

  it("keeps the first line of the SDK's long reports, and every line of anything else", () => {
    expect(message({ msg: 'asset bundle.js 1.71 MiB\n  modules by path ...', sdk: true, level: 30 })).toBe(
      'asset bundle.js 1.71 MiB …',
    );
    expect(message({ msg: 'failed:\nbecause', sdk: true, level: 50 })).toBe('failed:\nbecause');
    expect(message({ msg: 'a\nb', level: 30 })).toBe('a\nb');
  });
});

it('writes one short line per event, with the process name, and redacts secrets as the JSON lines do', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const log = createLogger('info', { name: 'worker', stream: prettyStream(out) });
  log.info(
    {
      kind: 'gym',
      sessionId: 12,
      status: 'answered',
      latencyMs: 840,
      workflowId: 'delivery-12',
      activityType: 'recordOutcome',
    },
    'delivery recorded',
  );
  log.warn({ webhook_secret: 'hidden-secret', detail: 'kept' }, 'something to see');
  await new Promise((resolve) => setImmediate(resolve));
  const lines = text.trimEnd().split('\n');
  expect(lines).toEqual([
    expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO \(worker\): delivery recorded: gym-12 answered in 840 ms$/),
    expect.stringMatching(
      /^\[\d\d:\d\d:\d\d\] WARN \(worker\): something to see \{"webhook_secret":"\[redacted\]","detail":"kept"\}$/,
    ),
  ]);
  expect(text).not.toContain('hidden-secret');
});
