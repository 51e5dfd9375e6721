/** With --profile: where the API, the worker (all its threads) and the Temporal server spend their CPU while the arena is under push load. */
import type { BenchStack } from '../stack/stack';
import { summarizeProfile, type ProfileSummary } from './cpu-profile';
import { startGoProfile, type GoProfile, type GoRecording } from './go-profile';
import { connectInspector, type InspectorSession } from './inspector';

export interface PushProfile {
  /** `api main`, `worker main`, `worker thread 1` (the workflow thread), ... */
  threads: Record<string, ProfileSummary>;
  temporal: GoProfile | string;
}

export interface StageProfiler {
  start(): Promise<void>;
  stop(): Promise<PushProfile>;
  close(): void;
}

/** The API and the worker must run with --inspect=127.0.0.1:0 (main does that for --profile). */
export async function createStageProfiler(stack: BenchStack): Promise<StageProfiler> {
  const sessions: Array<[string, InspectorSession]> = [
    ['api', await connectInspector(stack.logFile('api'), stack.api.pid)],
    ['worker', await connectInspector(stack.logFile('worker'), stack.worker.pid)],
  ];
  let go: GoRecording | undefined;
  return {
    async start() {
      for (const [, s] of sessions) await s.start();
      const temporalPid = stack.pids().temporal;
      go = temporalPid ? await startGoProfile(temporalPid, stack.temporalCliPath) : undefined;
    },
    async stop() {
      const threads: Record<string, ProfileSummary> = {};
      for (const [name, s] of sessions) {
        for (const [thread, profile] of Object.entries(await s.stop()))
          threads[`${name} ${thread}`] = summarizeProfile(profile, 15);
      }
      return { threads, temporal: go ? await go.stop() : 'not profiled: no Temporal server process found' };
    },
    close() {
      for (const [, s] of sessions) s.close();
    },
  };
}
