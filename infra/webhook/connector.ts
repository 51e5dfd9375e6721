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
    // The built connector returns its socket, though its type says void. `let`: the callback may
    // run before the call returns, and then reads socket as undefined rather than throwing.
    let socket: Socket | undefined;
    // eslint-disable-next-line prefer-const
    socket = (build as unknown as (...a: Parameters<buildConnector.connector>) => Socket | undefined)(
      target,
      (...result) => {
        if (socket) connecting.delete(socket);
        callback(...result);
      },
    );
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
