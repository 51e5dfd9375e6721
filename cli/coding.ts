/** `arena coding …`: operators review coding sessions, first of all the runs found tampered with. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { deliveryPublicId } from '../domain/deliveries';
import { unusualArenaFaults } from '../domain/sandbox/pass-rate';
import {
  arenaFaultCodingSessions,
  arenaFaultsByAgent,
  tamperedCodingSessions,
} from '../infra/db/repositories/coding.repository';
import { arenaFaultRate } from '../infra/db/repositories/leaderboard.repository';
import { parseDuration } from '../services/delivery-search';
import { CommandError, type Print } from './command';

export interface TamperedOptions {
  since?: string;
  agent?: string;
  limit?: string;
}

/** The options both listings take, checked: a duration, an agent id, a limit. */
function filterOf(opts: TamperedOptions): { since?: Date; agentId?: number; limit: number } {
  const sinceMs = opts.since === undefined ? undefined : parseDuration(opts.since);
  if (sinceMs === null)
    throw new CommandError(`--since must be a duration such as 90s, 15m, 1h or 7d, not ${opts.since}`);
  const agentId = opts.agent === undefined ? undefined : Number(opts.agent);
  if (agentId !== undefined && !(Number.isSafeInteger(agentId) && agentId > 0))
    throw new CommandError(`--agent must be an agent id, not ${opts.agent}`);
  const limit = opts.limit === undefined ? 50 : Number(opts.limit);
  if (!(Number.isSafeInteger(limit) && limit > 0 && limit <= 10_000))
    throw new CommandError(`--limit must be a whole number from 1 to 10000, not ${opts.limit}`);
  return {
    ...(sinceMs === undefined ? {} : { since: new Date(Date.now() - sinceMs) }),
    ...(agentId === undefined ? {} : { agentId }),
    limit,
  };
}

/** Lists the sessions scored 0 because their run was tampered with: who, which task, when, and why. */
export async function listTampered(em: EntityManager, opts: TamperedOptions, print: Print): Promise<void> {
  const rows = await tamperedCodingSessions(em, filterOf(opts));
  print(['session', 'agent', 'task', 'ended', 'reason', 'what the judge saw'].join('\t'));
  for (const r of rows) {
    const ended = new Date(r.ended_at).toISOString();
    // The detail may quote what the code under test chose: shown to operators, escaped onto one line.
    const detail = r.tamper_detail === null ? '-' : JSON.stringify(r.tamper_detail).slice(1, -1);
    print(
      [
        deliveryPublicId('sandbox', r.session_id),
        `${r.agent_id} ${r.agent_name}`,
        r.task_id,
        ended,
        r.tampered,
        detail,
      ].join('\t'),
    );
  }
  print(`${rows.length} tampered session(s); each one's transcript is in its agent's feed`);
}

/**
 * Lists the sessions the arena's own failure ended (not counted as the agent's attempts), then the
 * arena's rate and the agents whose share of them is far above it: an agent that makes the arena
 * fail would hide its failures.
 */
export async function listArenaFaults(em: EntityManager, opts: TamperedOptions, print: Print): Promise<void> {
  const [rows, rate, agents] = await Promise.all([
    arenaFaultCodingSessions(em, filterOf(opts)),
    arenaFaultRate(em),
    arenaFaultsByAgent(em),
  ]);
  print(['session', 'agent', 'task', 'ended', 'error'].join('\t'));
  for (const r of rows) {
    const ended = new Date(r.ended_at).toISOString();
    print(
      [
        deliveryPublicId('sandbox', r.session_id),
        `${r.agent_id} ${r.agent_name}`,
        r.task_id,
        ended,
        r.error ?? '-',
      ].join('\t'),
    );
  }
  const share = rate.ended > 0 ? ` (${((100 * rate.faults) / rate.ended).toFixed(1)}%)` : '';
  print(`${rows.length} listed; the arena's own failure ended ${rate.faults} of ${rate.ended} coding sessions${share}`);
  for (const a of agents.filter((x) => unusualArenaFaults(x.faults, x.ended, rate)))
    print(`far above the arena's rate: agent ${a.agent_id} ${a.agent_name}, ${a.faults} of ${a.ended} sessions`);
}
