/** Small network checks for tests. */
import net from 'node:net';

/** Whether something accepts TCP connections on 127.0.0.1:port right now. */
export function portIsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
