/** The Temporal server an operator command talks to: TEMPORAL_ADDRESS, or the embedded dev server `npm start` runs. */
import { Client, Connection } from '@temporalio/client';
import { temporalConnectionOptions, type Config } from '../infra/config';
import { CommandError } from './command';

export function operatorTemporalAddress(config: Config): string {
  return config.temporalAddress ?? `127.0.0.1:${config.temporalPort}`;
}

export async function withTemporal<T>(config: Config, work: (client: Client) => Promise<T>): Promise<T> {
  const address = operatorTemporalAddress(config);
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...temporalConnectionOptions(config, address),
      connectTimeout: '5 seconds',
    });
  } catch (err) {
    throw new CommandError(
      `cannot reach Temporal at ${address} (${(err as Error).message}); is the service running? Set TEMPORAL_ADDRESS otherwise`,
    );
  }
  try {
    return await work(new Client({ connection, namespace: config.temporalNamespace }));
  } finally {
    await connection.close();
  }
}
