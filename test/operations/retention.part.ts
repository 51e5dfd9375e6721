/** The hourly retention's sweep of settled work items: past the retention they go, within it (or unsettled) they stay. */
import { applyRetention } from '../../workflows';
import { startOpsArena, type OpsArena } from './support';

let arena: OpsArena;
let agentId: number;
beforeAll(async () => {
  arena = await startOpsArena();
  agentId = (await arena.createAgent({ name: 'puller', mode: 'pull' })).id;
});
afterAll(() => arena.close());

let promptSeq = 0;
/** A pull delivery and its work item, ended (or not) `daysAgo` days ago. */
async function workItem(state: 'completed' | 'expired' | 'queued' | 'leased', daysAgo: number): Promise<number> {
  const [prompt] = await arena.sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('sandbox', 'c', ?, now()) returning id`,
    [`retention ${++promptSeq}`],
  );
  const settled = state === 'completed' || state === 'expired';
  const [session] = await arena.sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, error, created_at, completed_at)
     values (?, 'sandbox', ?, 'pull', 'c', 30, ?, ?, now() - make_interval(days => ?), ?::timestamptz)
     returning id`,
    [
      agentId,
      prompt!.id,
      settled ? 'error' : 'pending',
      settled ? 'deadline exceeded' : null,
      daysAgo,
      settled ? new Date(Date.now() - daysAgo * 86_400_000).toISOString() : null,
    ],
  );
  await arena.sql(
    `insert into work_items (session_id, agent_id, state, created_at) values (?, ?, ?, now() - make_interval(days => ?))`,
    [session!.id, agentId, state, daysAgo],
  );
  return session!.id;
}

const workItemsOf = async (ids: number[]) =>
  (
    await arena.sql<{ session_id: number }>(
      `select session_id from work_items where session_id = any(?::int[]) order by session_id`,
      [`{${ids.join(',')}}`],
    )
  ).map((row) => row.session_id);

const retain = (workItemDays?: number) =>
  arena.client.workflow.execute(applyRetention, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `retention-work-items-${Date.now()}-${Math.random()}`,
    args: [{ codingStepDays: 30, ...(workItemDays === undefined ? {} : { workItemDays }) }],
  });

it('deletes settled work items past the retention and keeps the rest, and the deliveries themselves', async () => {
  const past = [await workItem('completed', 8), await workItem('expired', 30)];
  const within = [await workItem('completed', 6), await workItem('expired', 1)];
  // Never settled, however old: its delivery is still running, or its runner still holds it.
  const open = [await workItem('queued', 40), await workItem('leased', 40)];
  const all = [...past, ...within, ...open];

  // A schedule made before the setting existed leaves every item alone.
  await expect(retain()).resolves.toBe('0 coding steps cut to their transcript');
  expect(await workItemsOf(all)).toEqual(all);

  await expect(retain(7)).resolves.toBe('0 coding steps cut to their transcript; 2 settled work items deleted');
  expect(await workItemsOf(all)).toEqual([...within, ...open]);
  const sessions = await arena.sql<{ id: number }>(`select id from sessions where id = any(?::int[]) order by id`, [
    `{${all.join(',')}}`,
  ]);
  expect(sessions.map((s) => s.id)).toEqual(all);
  // Nothing left past the retention: a second run deletes none.
  await expect(retain(7)).resolves.toMatch(/; 0 settled work items deleted$/);
});
