/**
 * Every push agent the figures need, in one farm process and registered at once: agents that
 * answer (push figure), agents that never answer (deadline figure), and one whose feed is read
 * (read figure). Their gyms run side by side, so the set-up costs one gym's time, not three.
 */
import type { Client } from '@temporalio/client';
import type { ApiClient } from '../lib/api-client';
import type { BenchStack } from '../stack/stack';
import { startFarm, type Farm } from './farm';

export interface Fleet {
  farm: Farm;
  answering: number[];
  silent: number[];
  reader: number;
  stop(): Promise<void>;
}

export async function startFleet(
  stack: BenchStack,
  api: ApiClient,
  key: string,
  sizes: { answering: number; silent: number },
): Promise<Fleet> {
  const behaviours = [...Array(sizes.answering).fill('answer'), ...Array(sizes.silent).fill('hang'), 'answer'];
  const farm = await startFarm(behaviours, stack.env, stack.logFile('farm'));
  try {
    const ids = await Promise.all(
      farm.urls.map(async (url, i) => {
        const agent = await api.createPushAgent(key, `bench-${behaviours[i]}-${i + 1}`, url);
        if (!agent.active) throw new Error(`push agent ${agent.id} is not active after its ping: ${agent.pingError}`);
        return agent.id;
      }),
    );
    // New agents run the six-prompt gym first; measuring while gyms run would mix their deliveries in.
    await waitForGyms(stack.temporal, ids);
    return {
      farm,
      answering: ids.slice(0, sizes.answering),
      silent: ids.slice(sizes.answering, sizes.answering + sizes.silent),
      reader: ids[ids.length - 1]!, // behaviours end with the reader's, so ids is never empty
      stop: () => farm.stop(),
    };
  } catch (err) {
    await farm.stop();
    throw err;
  }
}

function waitForGyms(temporal: Client, ids: number[]): Promise<unknown> {
  return Promise.all(ids.map((id) => temporal.workflow.getHandle(`gym-${id}-1`).result()));
}
