/**
 * Free ports for test servers and side-by-side services (infra/ports.ts) come from below the range
 * the kernel takes outgoing connections' local ports from, so no connection can take one before
 * its server listens there.
 */
import fs from 'node:fs';
import net from 'node:net';
import { ephemeralPortsStart, freePort } from '../../infra/ports';

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server));
  });

afterEach(() => jest.restoreAllMocks());

it('picks ports below the ephemeral range, each one free to listen on', async () => {
  const start = ephemeralPortsStart();
  expect(start).toEqual(expect.any(Number)); // Linux: /proc/sys/net/ipv4/ip_local_port_range
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(start!);
  }
  const server = await listen(ports[0]!);
  server.close();
});

it('takes the kernel’s pick where the ephemeral range leaves no room below it', async () => {
  const read = fs.readFileSync;
  jest
    .spyOn(fs, 'readFileSync')
    .mockImplementation(((file: fs.PathOrFileDescriptor, options?: unknown) =>
      file === '/proc/sys/net/ipv4/ip_local_port_range' ? '1024\t65535\n' : read(file, options as never)) as never);
  expect(ephemeralPortsStart()).toBe(1024);
  const port = await freePort();
  expect(port).toBeGreaterThanOrEqual(1024);
  const server = await listen(port);
  server.close();
});
