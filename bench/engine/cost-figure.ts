/**
 * Figure 7, cost: what one delivery costs the engine, per kind and mode, against the one-activity
 * baseline, from the real histories of this run's workflows (found through their search
 * attributes): history events and billable actions (`billable-actions.ts`). Runs after the other
 * figures and counts whichever deliveries they made.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import { executionCost, type ExecutionCost } from './billable-actions';

/** Histories read per group: they are alike within a group, a few show it. */
const SAMPLES = 10;

const EVENT_TYPE_NAMES = temporal.api.enums.v1.EventType as unknown as Record<number, string>;

interface Group {
  name: string;
  query: string;
  /** Billable actions allowed over the baseline's. */
  allowance?: number;
}

const GROUPS: Group[] = [
  {
    name: 'push, answered',
    query: `ArenaKind = 'sandbox' AND ArenaMode = 'push' AND ArenaOutcome = 'answered'`,
    allowance: 1,
  },
  { name: 'push, missed deadline', query: `ArenaKind = 'sandbox' AND ArenaMode = 'push' AND ArenaOutcome = 'timeout'` },
  {
    name: 'pull, answered',
    query: `ArenaKind = 'sandbox' AND ArenaMode = 'pull' AND ArenaOutcome = 'answered'`,
    allowance: 2,
  },
];

export interface CostGroup {
  name: string;
  histories: number;
  /** The median history of the group. */
  cost: ExecutionCost;
}

export interface CostResult {
  baseline: CostGroup;
  groups: CostGroup[];
  figures: FigureRow[];
}

async function sample(client: Client, name: string, query: string): Promise<CostGroup | undefined> {
  const costs: ExecutionCost[] = [];
  for await (const execution of client.workflow.list({ query: `${query} AND ExecutionStatus = 'Completed'` })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    costs.push(executionCost(history.events ?? [], EVENT_TYPE_NAMES));
    if (costs.length >= SAMPLES) break;
  }
  if (costs.length === 0) return undefined;
  costs.sort((a, b) => a.actions - b.actions || a.events - b.events);
  return { name, histories: costs.length, cost: costs[Math.floor((costs.length - 1) / 2)]! };
}

export async function runCostFigure(ctx: { client: Client; progress: Progress }): Promise<CostResult | undefined> {
  const baseline = await sample(ctx.client, 'one-activity workflow', `WorkflowType = 'noopDelivery'`);
  if (!baseline) {
    ctx.progress.log('cost: no baseline workflows in this run (the push figure makes them); skipped');
    return undefined;
  }
  const groups: CostGroup[] = [];
  const figures: FigureRow[] = [];
  for (const group of GROUPS) {
    const found = await sample(ctx.client, group.name, `WorkflowType = 'deliverPrompt' AND ${group.query}`);
    if (!found) continue;
    groups.push(found);
    const kinds = Object.entries(found.cost.byKind)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ');
    figures.push(
      figure({
        group: 'Cost',
        name: `billable actions per delivery (${group.name})`,
        unit: '',
        value: found.cost.actions,
        baselineName: 'the one-activity workflow',
        baseline: baseline.cost.actions,
        better: 'lower',
        ...(group.allowance === undefined
          ? {}
          : {
              target: `<= the baseline's + ${group.allowance}`,
              met: found.cost.actions <= baseline.cost.actions + group.allowance,
            }),
        note: kinds,
      }),
      figure({
        group: 'Cost',
        name: `history events per delivery (${group.name})`,
        unit: '',
        value: found.cost.events,
        baselineName: 'the one-activity workflow',
        baseline: baseline.cost.events,
        better: 'lower',
      }),
    );
    ctx.progress.log(
      `cost: ${group.name}: ${found.cost.actions} actions (${kinds}), ${found.cost.events} events; baseline ${baseline.cost.actions} / ${baseline.cost.events}`,
    );
  }
  return { baseline, groups, figures };
}
