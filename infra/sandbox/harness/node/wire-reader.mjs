/**
 * The wire's reader: a worker thread that reads frames off the wire's descriptor with blocking reads
 * and hands each to the main thread (wire.mjs) as it arrives, so the main thread can wait for one
 * either blocked (Atomics.wait, during a call) or idle (its event loop, while a promise is awaited).
 */
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';

const { fd, port, flag, maxFrame } = workerData;
const pause = new Int32Array(new SharedArrayBuffer(4));

function post(message) {
  port.postMessage(message);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function read(buffer, offset, length) {
  for (;;) {
    try {
      return fs.readSync(fd, buffer, offset, length, null);
    } catch (error) {
      // A descriptor left non-blocking: wait a little and read again.
      if (error?.code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 1);
        continue;
      }
      if (error?.code === 'EOF') return 0;
      throw error;
    }
  }
}

function exactly(count) {
  const buffer = Buffer.allocUnsafe(count);
  for (let got = 0; got < count;) {
    const n = read(buffer, got, count - got);
    if (n === 0) return null;
    got += n;
  }
  return buffer;
}

try {
  for (;;) {
    const head = exactly(4);
    if (head === null) break;
    const length = head.readUInt32BE(0);
    // An empty frame is the peer's last: it closes the wire (a descriptor its sandbox's shell still
    // holds would never read as closed).
    if (length === 0) break;
    if (length > maxFrame) {
      post({ error: `a frame of ${length} bytes, past the wire's limit` });
      break;
    }
    const body = exactly(length);
    if (body === null) break;
    post(body.toString('utf8'));
  }
} catch {
  // A read that failed is the peer gone.
}
post({ gone: true });
