/** `arena deliveries` and `arena redeliver`: find deliveries through Temporal visibility, and send them again. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { SingleBar } from 'cli-progress';
import { deliveryFilter, listDeliveries, type DeliveryFilter, type DeliveryListing } from '../services/delivery-search';
import { ruleFor } from '../api/validation';
import { redeliver, redeliverMatching } from '../services/redeliveries';
import type { WorkflowDeps } from '../services/workflow-client';
import { ArenaError } from '../domain/errors';
import type { Config } from '../infra/config';
import { CommandError, type Print } from './command';

export interface FilterOptions {
  agent?: string;
  kind?: string;
  outcome?: string;
  since?: string;
  limit?: string;
}

/** The command-line filters, checked by the same schema as GET /api/admin/deliveries. */
export function parseFilter(options: FilterOptions): DeliveryFilter {
  const parsed = deliveryFilter.safeParse(
    Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    { error: ruleFor },
  );
  if (!parsed.success)
    throw new CommandError(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

function row(d: DeliveryListing): string {
  const cells = [
    d.session_id.padEnd(16),
    String(d.agent_id ?? '-').padEnd(8),
    (d.mode ?? '-').padEnd(5),
    (d.outcome ?? d.status.toLowerCase()).padEnd(10),
    d.started_at,
  ];
  return `${cells.join('  ')}${d.ui_url ? `  ${d.ui_url}` : ''}`;
}

export async function listDeliveriesCommand(
  client: Client,
  config: Config,
  options: FilterOptions & { json?: boolean },
  print: Print,
): Promise<void> {
  const found = await listDeliveries(
    client,
    { namespace: config.temporalNamespace, taskQueue: config.taskQueue, uiUrl: config.temporalUiUrl },
    parseFilter(options),
  );
  if (options.json) {
    for (const d of found) print(JSON.stringify(d));
    return;
  }
  if (found.length === 0) return print('no deliveries match');
  print(
    `${'SESSION'.padEnd(16)}  ${'AGENT'.padEnd(8)}  ${'MODE'.padEnd(5)}  ${'OUTCOME'.padEnd(10)}  STARTED${config.temporalUiUrl ? '  TEMPORAL UI' : ''}`,
  );
  for (const d of found) print(row(d));
  print(
    `${found.length} deliver${found.length === 1 ? 'y' : 'ies'}${found.length === (options.limit ? Number(options.limit) : 100) ? ' (the limit; --limit shows more)' : ''}`,
  );
}

export function workflowDeps(client: Client, config: Config): WorkflowDeps {
  return {
    client,
    taskQueue: config.taskQueue,
    gymRetrySeconds: config.gymRetrySeconds,
    callTimeoutMs: 10_000,
    eagerStart: false,
  };
}

/** One delivery by its session id, or every one the filters find (failed unless --outcome says otherwise). */
export async function redeliverCommand(
  orm: MikroORM,
  client: Client,
  config: Config,
  sessionId: string | undefined,
  options: FilterOptions,
  print: Print,
): Promise<void> {
  const workflows = workflowDeps(client, config);
  const hasFilters = Object.values(options).some((v) => v !== undefined);
  if (sessionId && hasFilters) throw new CommandError('give a session id or filters, not both');
  if (!sessionId && !hasFilters)
    throw new CommandError(
      'give a session id (e.g. main-42), or filters such as --agent 7 --since 1h for a bulk redelivery',
    );
  try {
    if (sessionId) {
      const done = await redeliver(orm.em.fork(), workflows, sessionId);
      print(`redelivered ${done.redelivery_of} as ${done.session_id} (workflow ${done.workflow_id})`);
      return;
    }
    const bar = process.stderr.isTTY
      ? new SingleBar({ format: 'redelivering [{bar}] {value}/{total} {last}', hideCursor: true })
      : null;
    const result = await redeliverMatching(
      orm.em.fork(),
      workflows,
      { namespace: config.temporalNamespace, taskQueue: config.taskQueue, uiUrl: config.temporalUiUrl },
      // A bulk run goes through up to 1000 deliveries unless told otherwise (a listing shows 100).
      { ...parseFilter(options), ...(options.limit ? {} : { limit: 1000 }) },
      (done, total, last) => {
        if (bar && done === 1) bar.start(total, 0, { last: '' });
        bar?.update(done, { last: last.session_id });
      },
    );
    bar?.stop();
    for (const r of result.redelivered) print(`redelivered ${r.redelivery_of} as ${r.session_id}`);
    for (const s of result.skipped) print(`skipped ${s.session_id}: ${s.reason}`);
    print(`${result.redelivered.length} redelivered, ${result.skipped.length} skipped`);
  } catch (err) {
    if (err instanceof ArenaError) throw new CommandError(err.detail);
    throw err;
  }
}
