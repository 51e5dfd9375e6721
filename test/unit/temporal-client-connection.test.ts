/**
 * Closing the API's Temporal connection while a call waits to be retried. A loopback HTTP/2 server
 * stands in for Temporal: it answers the connection's first call (GetSystemInfo, an empty message)
 * and says UNAVAILABLE to everything else, so every other call is retried on a timer.
 *
 * With a plain `Connection`, the retry fired after the close and threw "Channel has been shut down"
 * from its timer: the call never settled, and the exception failed whichever test file was running.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connectClient } from '../../infra/temporal/client-connection';

let server: http2.Http2Server;
let address: string;
const calls: string[] = [];
/** Each DescribeNamespace call as it arrives, held until the test has it refused. */
const arrivals: Array<(refuse: () => void) => void> = [];
const nextArrival = () => new Promise<() => void>((resolve) => arrivals.push(resolve));

beforeAll(async () => {
  server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const method = String(headers[':path']).split('/').pop()!;
    calls.push(method);
    stream.on('data', () => undefined);
    stream.on('end', () => {
      if (method === 'GetSystemInfo') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        // An empty message: no compression, length 0.
        stream.end(Buffer.alloc(5));
        return;
      }
      const refuse = () =>
        stream.respond(
          { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '14', 'grpc-message': 'busy' },
          { endStream: true },
        );
      const waiting = arrivals.shift();
      if (waiting) waiting(refuse);
      else refuse();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('ends a call refused while the connection closes with its status, and retries nothing after the close', async () => {
  const { connection, close } = await connectClient({ address });
  const first = nextArrival();
  const call = connection.workflowService.describeNamespace({ namespace: 'default' });
  const settled = call.then(
    () => 'answered',
    (err: { code?: number }) => err.code,
  );
  // The first attempt is refused and retried on the client's timer.
  const second = nextArrival();
  (await first)();
  const refuseSecond = await second;
  // The retry is under way as the connection closes; then it is refused as well.
  const closed = close();
  refuseSecond();
  await closed;
  expect(await settled).toBe(14);
  expect(calls.filter((m) => m === 'DescribeNamespace')).toHaveLength(2);
});
