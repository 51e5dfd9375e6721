/**
 * Agents that start past the gym: every test app's default (startTestApp's `pastTheGym`), for the
 * test files that do not test the gym. A gym is six deliveries an agent answers one after another;
 * a file that needs agents on the board, in the arena or on a page paid them for every agent it
 * made, several hundred deliveries a run.
 *
 * The fixture stands in for the gym's workflow where the API starts it (a Temporal client
 * interceptor on the test app's client): in its place it writes what a gym the agent passed leaves,
 * through the gym's own repository functions: one answered gym session per gym prompt, and the gym
 * marked complete for that attempt. Everything else the API starts (deliveries, votes, battles)
 * goes to Temporal as usual. The gym itself is tested by the files that turn the fixture off
 * (`pastTheGym: false`: test/deliveries/push.part.ts, pull.part.ts and runner-e2e.part.ts,
 * test/api/agents.part.ts, the A2A files, the quick start, the installed runner package, and the
 * anonymity files, which show the gym's answers in public), and by a2a-mode's joining tests, before
 * its later agents start past it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { DEFAULT_DEADLINE_SECONDS } from '../../domain/deliveries';
import { gymStateOf, markGymComplete } from '../../infra/db/repositories/agent.repository';
import { insertGymDelivery, recordDeliveryOutcome } from '../../infra/db/repositories/delivery.repository';
import { gymPromptsStillOpen } from '../../infra/db/repositories/delivery-read.repository';
import type { GymInput } from '../../workflows/contracts';

/** The run id the interceptor answers in place of a gym workflow's. */
export const PAST_THE_GYM = 'past-the-gym';

/** Writes a passed gym for the agent's attempt, as the gym's workflow would once every prompt had a good answer. */
export async function passGym(orm: MikroORM, agentId: number, attempt: number): Promise<void> {
  const em = orm.em.fork();
  const agent = await gymStateOf(em, agentId);
  if (!agent || agent.gym_attempt !== attempt) return;
  for (const promptId of await gymPromptsStillOpen(em, agentId, agent.gym_started_at)) {
    const delivery = await insertGymDelivery(em, {
      agentId,
      promptId,
      attempt,
      deadlineSeconds: DEFAULT_DEADLINE_SECONDS.gym,
      dedupeKey: `gym:${agentId}:${attempt}:1:${promptId}`,
    });
    if (!delivery) return;
    await recordDeliveryOutcome(em, delivery.id, {
      status: 'answered',
      response: 'ready',
      error: null,
      errorDetail: null,
      latencyMs: 1,
      receivedAt: null,
      agentLatencyMs: null,
      resultHash: null,
      keepLastAttempt: false,
    });
  }
  await markGymComplete(em, agentId, attempt);
}

/**
 * The interceptor: a gym's start becomes passGym while `when()` says so (a file that tests the gym in
 * some tests only); every other start goes on to Temporal.
 */
export function pastTheGym(orm: () => MikroORM, when: () => boolean = () => true): WorkflowClientInterceptor {
  return {
    async start(input, next) {
      if (input.workflowType !== 'runGym' || !when()) return next(input);
      const [gym] = input.options.args as [GymInput];
      await passGym(orm(), gym.agentId, gym.attempt);
      return PAST_THE_GYM;
    },
  };
}
