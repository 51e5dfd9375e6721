/** The soak's accounting: what became of every delivery it started, per kind of work and mode. */
import fs from 'node:fs/promises';
import { CODING_CATEGORY } from '../../domain/deliveries';
import type { Behaviour } from './agents';
import type { DeliveryRow } from './report';

/** How the soak started an agent. */
export interface SoakAgent {
  mode: 'push' | 'pull';
  behaviour: Behaviour;
}

/** A delivery as the table holds it at the end of the run. */
export interface EndedRow {
  id: number;
  agent_id: number;
  kind: string;
  category: string;
  mode: string;
  status: string;
}

/** Whether a delivery has ended: a coding session is `running` from its first step until it ends. */
export const ended = (status: string) => status !== 'pending' && status !== 'running';

/** First writes per session id, from the worker's `delivery recorded` / `delivery failed` lines (one per write that changed the row). */
export async function firstWritesBySession(logFile: string): Promise<Map<number, number>> {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  const counts = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.includes('delivery recorded') && !line.includes('delivery failed')) continue;
    const id = /"sessionId":\s*(\d+)/.exec(line) ?? /sessionId[=:]\s*(\d+)/.exec(line);
    if (id) counts.set(Number(id[1]), (counts.get(Number(id[1])) ?? 0) + 1);
  }
  return counts;
}

export interface Accounting {
  deliveries: DeliveryRow[];
  /** Each delivery recorded or sent more than once, named. */
  duplicates: string[];
}

/**
 * One row per kind of delivery: those the soak started (`started`: id to the row it counts in) and
 * those the arena started itself (gym, main prompts), each counted once as ended, lost, recorded
 * twice (`writes`) or sent twice (`received`: the push agents' count per `<agent index> <delivery>`,
 * indexed like `pushAgents`). A sandbox row written whose 202 never reached the soak is counted as
 * unacknowledged.
 */
export function accountDeliveries({
  rows,
  started,
  writes,
  agents,
  pushAgents,
  received,
}: {
  rows: readonly EndedRow[];
  started: ReadonlyMap<number, string>;
  writes: ReadonlyMap<number, number>;
  agents: ReadonlyMap<number, SoakAgent>;
  pushAgents: ReadonlyArray<{ id: number; behaviour: Behaviour }>;
  received: ReadonlyMap<string, number>;
}): Accounting {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const deliveries = new Map<string, DeliveryRow>();
  const rowFor = (kind: string): DeliveryRow => {
    let row = deliveries.get(kind);
    if (!row) {
      row = {
        kind,
        started: 0,
        recordedOnce: 0,
        lost: 0,
        recordedTwice: 0,
        sentTwice: 0,
        unacknowledged: 0,
        outcomes: {},
      };
      deliveries.set(kind, row);
    }
    return row;
  };
  const count = (row: DeliveryRow, id: number) => {
    const session = byId.get(id);
    const n = writes.get(id) ?? 0;
    if (!session || !ended(session.status)) row.lost += 1;
    else {
      row.outcomes[session.status] = (row.outcomes[session.status] ?? 0) + 1;
      if (n > 1) row.recordedTwice += 1;
      else row.recordedOnce += 1;
    }
  };
  for (const [id, label] of started) {
    const row = rowFor(label);
    row.started += 1;
    count(row, id);
  }
  for (const r of rows) {
    if (r.kind === 'sandbox') {
      if (started.has(r.id)) continue;
      // Written, but its 202 never reached the soak (a timeout or a restart in between).
      const s = agents.get(r.agent_id)!;
      const row = rowFor(r.category === CODING_CATEGORY ? 'coding pull' : `sandbox ${s.mode} ${s.behaviour}`);
      row.unacknowledged += 1;
      if (!ended(r.status)) row.lost += 1;
      continue;
    }
    const row = rowFor(`${r.kind} ${r.mode}`);
    row.started += 1;
    count(row, r.id);
  }
  const sentTwice: string[] = [];
  for (const [key, n] of received) {
    if (n < 2) continue;
    const [index, delivery = ''] = key.split(' ');
    const agent = pushAgents[Number(index)]!;
    sentTwice.push(`agent ${agent.id}: ${delivery} x${n}`);
    const kind = delivery.startsWith('sandbox-') ? `sandbox push ${agent.behaviour}` : `${delivery.split('-')[0]} push`;
    rowFor(kind).sentTwice += 1;
  }
  const recordedTwice = [...writes].filter(([, n]) => n > 1).map(([id, n]) => `session ${id} x${n}`);
  return {
    deliveries: [...deliveries.values()].sort((a, b) => a.kind.localeCompare(b.kind)),
    duplicates: [...recordedTwice, ...sentTwice],
  };
}
