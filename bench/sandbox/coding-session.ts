/** A coding session for the benchmarks: opened for a fresh pull agent, its work item taken as a runner takes it. */
import { parseDeliveryPublicId } from '../../domain/deliveries';
import { deliveryWorkflowId } from '../../workflows/contracts';
import type { ApiClient } from '../lib/api-client';

export interface Session {
  api: string;
  token: string;
  workflowId: string;
}

/** The task the figure's sessions work: `ARENA_BENCH_SANDBOX_TASK` picks another (a JavaScript one, say). */
export const TASK = process.env.ARENA_BENCH_SANDBOX_TASK ?? 'python/leap-year';

/** Starts a coding session for a fresh pull agent and takes its work item, as a runner would. */
export async function openSession(api: ApiClient, key: string): Promise<Session> {
  const { body: agent } = await api.request<{ id: number; webhook_secret: string }>('POST', '/api/agents', {
    key,
    body: { name: `bench-coder-${Math.random().toString(36).slice(2, 10)}`, mode: 'pull' },
  });
  const { status, body: started } = await api.request<{ id: string; detail?: string }>(
    'POST',
    `/api/agents/${agent.id}/sandbox`,
    { key, body: { task: TASK, deadline_seconds: 3600 } },
  );
  if (status !== 202) throw new Error(`a coding session could not be started: ${started.detail ?? status}`);
  for (let i = 0; i < 100; i++) {
    const next = await api.request<{ work_id: string; sandbox?: { api: string; token: string } } | null>(
      'GET',
      `/api/agents/${agent.id}/work/next?wait=10`,
      { headers: { 'x-arena-secret': agent.webhook_secret } },
    );
    if (next.status === 200 && next.body?.work_id === started.id && next.body.sandbox) {
      const parsed = parseDeliveryPublicId(started.id);
      if (!parsed) throw new Error(`an unexpected session id: ${started.id}`);
      return {
        api: new URL(next.body.sandbox.api).pathname,
        token: next.body.sandbox.token,
        workflowId: deliveryWorkflowId(parsed.id),
      };
    }
    if (next.status === 200 && next.body)
      await api.request('POST', `/api/agents/${agent.id}/work/${next.body.work_id}/result`, {
        headers: { 'x-arena-secret': agent.webhook_secret },
        body: { response: 'bench' },
      });
  }
  throw new Error(`coding session ${started.id} was never handed out`);
}
