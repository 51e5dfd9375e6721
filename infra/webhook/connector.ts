/** The webhook agent's socket connector: undici's own, plus a hold on sockets still connecting. */
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

export interface TrackedConnector {
  connect: buildConnector.connector;
  /** Ends every socket that has not finished connecting yet. */
  abortPending(reason: Error): void;
}

// undici's destroy() does not reach a socket still in its TCP or TLS handshake (it only learns
// of it once connected), so a request we gave up on would keep one open until the connect
// timeout; close() ends those here.
export function trackedConnector(options: buildConnector.BuildOptions): TrackedConnector {
  const build = buildConnector(options);
  const connecting = new Set<Socket>();

  const connect: buildConnector.connector = (target, callback) => {
    let socket: Socket | undefined;
    // The built connector returns its socket, though its type says void.
    socket = (build as unknown as (...a: Parameters<buildConnector.connector>) => Socket | undefined)(target, (...result) => {
      if (socket) connecting.delete(socket);
      callback(...result);
    });
    if (socket) {
      connecting.add(socket);
      const connectingSocket = socket;
      socket.once('close', () => connecting.delete(connectingSocket));
    }
  };

  return {
    connect,
    abortPending(reason) {
      // Destroying with an error reaches undici's connect callback, which then lets the request go.
      for (const socket of connecting) socket.destroy(reason);
      connecting.clear();
    },
  };
}
