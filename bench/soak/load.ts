/** The soak's cast (its accounts, agents and judge) and its load: each kind of request a ticker at its rate. */
import type { BenchStack } from '../stack/stack';
import type { SoakAgent } from './accounting';
import type { Behaviour, PullAgent, RequestSample } from './agents';
import { SoakJudge } from './judges';
import { main as arena } from '../../cli/main';

export type LoadKind = 'sandbox push' | 'sandbox pull' | 'page' | 'feed' | 'live battle' | 'judge' | 'coding';

/** The coding sessions' task, and their deadline: the shortest the arena allows, so one given up ends inside the settling time. */
const CODING_TASK = 'python/leap-year';
const CODING_DEADLINE_SECONDS = 60;
/** Requests of one kind in flight at most: past it a tick is skipped, so an outage never piles up requests. */
const MAX_IN_FLIGHT = 16;
const REQUEST_TIMEOUT_MS = 30_000;

/** A JSON request to the API that must succeed (the cast's set-up, not the measured load). */
async function apiJson<T>(apiUrl: string, method: string, url: string, key?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${apiUrl}${url}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Who takes part: the owner's key, the judge, and the agents by mode, each with its behaviour. */
export interface SoakCast {
  key: string;
  judge: { apiKey: string; id: number };
  pushAgents: Array<{ id: number; behaviour: Behaviour }>;
  pullAgents: PullAgent[];
  /** The owner's push agents, then the second owner's: indexed like the push servers. */
  allPush: Array<{ id: number; behaviour: Behaviour }>;
  agents: Map<number, SoakAgent>;
}

/**
 * Registers the soak's accounts and agents: one push and one pull agent of the owner per behaviour
 * in `mix` (webhooks `urls[i]`), two fast push agents of a second owner (a live battle's two agents
 * have different owners; `urls` after the mix), and a judge the operator vouches for, registered
 * from the same address as the owners.
 */
export async function registerCast(stack: BenchStack, mix: Behaviour[], urls: string[]): Promise<SoakCast> {
  const json = <T>(method: string, url: string, key?: string, body?: unknown) =>
    apiJson<T>(stack.apiUrl, method, url, key, body);
  const { api_key: key } = await json<{ api_key: string }>('POST', '/api/register');
  const { api_key: rivalKey } = await json<{ api_key: string }>('POST', '/api/register');
  const judgeAccount = await json<{ api_key: string; username: string }>('POST', '/api/register');
  const { id: judgeId } = await json<{ id: number }>('GET', '/api/account', judgeAccount.api_key);
  const trusted = await arena(['judges', 'trust', judgeAccount.username], () => undefined, {
    ...process.env,
    DATABASE_URL: stack.databaseUrl,
  });
  if (trusted !== 0) throw new Error(`arena judges trust ${judgeAccount.username} failed`);
  const pushAgents: SoakCast['pushAgents'] = [];
  const pullAgents: PullAgent[] = [];
  for (const [i, behaviour] of mix.entries()) {
    const push = await json<{ id: number }>('POST', '/api/agents', key, {
      name: `soak-push-${behaviour}-${i}`,
      webhook_url: urls[i],
    });
    pushAgents.push({ id: push.id, behaviour });
    const pull = await json<{ id: number; webhook_secret: string }>('POST', '/api/agents', key, {
      name: `soak-pull-${behaviour}-${i}`,
      mode: 'pull',
    });
    pullAgents.push({ id: pull.id, secret: pull.webhook_secret, behaviour });
  }
  const allPush = [...pushAgents];
  for (const i of [0, 1]) {
    const rival = await json<{ id: number }>('POST', '/api/agents', rivalKey, {
      name: `soak-rival-${i}`,
      webhook_url: urls[mix.length + i],
    });
    allPush.push({ id: rival.id, behaviour: 'fast' });
  }
  const agents = new Map<number, SoakAgent>([
    ...allPush.map((a) => [a.id, { mode: 'push', behaviour: a.behaviour }] as const),
    ...pullAgents.map((a) => [a.id, { mode: 'pull', behaviour: a.behaviour }] as const),
  ]);
  return { key, judge: { apiKey: judgeAccount.api_key, id: judgeId }, pushAgents, pullAgents, allPush, agents };
}

/** The load under way: `stop()` stops its tickers; `drain()` waits for the requests still in flight. */
export interface Load {
  /** Each delivery the API acknowledged (202), with the row of the report it counts in. */
  started: Map<number, string>;
  judge: SoakJudge;
  stop(): void;
  drain(): Promise<void>;
}

/**
 * The load: each kind a ticker at its rate; a request that is still running when its cap is reached
 * skips a tick. Each request is recorded (`record`), failed ones with status 0.
 */
export function startLoad(
  stack: BenchStack,
  cast: SoakCast,
  { rates, deadlineSeconds }: { rates: Record<LoadKind, number>; deadlineSeconds: number },
  record: (s: Omit<RequestSample, 'at'> & { start: number }) => void,
): Load {
  const { key, pushAgents, pullAgents } = cast;
  const started = new Map<number, string>();
  let turn = 0;
  const request = async (
    kind: string,
    method: string,
    url: string,
    body?: unknown,
    as = key,
  ): Promise<Response | undefined> => {
    const start = Date.now();
    try {
      const res = await fetch(`${stack.apiUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${as}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      record({ kind, start, ms: Date.now() - start, status: res.status });
      return res;
    } catch {
      record({ kind, start, ms: Date.now() - start, status: 0 });
      return undefined;
    }
  };
  const sandbox = (mode: 'push' | 'pull') => async () => {
    const list = mode === 'push' ? pushAgents : pullAgents;
    const agent = list[turn++ % list.length]!;
    const res = await request(`sandbox ${mode}`, 'POST', `/api/agents/${agent.id}/sandbox`, {
      prompt: `soak prompt ${turn}`,
      deadline_seconds: deadlineSeconds,
    });
    if (res?.status === 202) {
      const { id } = (await res.json()) as { id: string };
      started.set(Number(id.split('-')[1]), `sandbox ${mode} ${agent.behaviour}`);
    } else await res?.body?.cancel();
  };
  // Coding sessions go to a fast pull agent, whose runner writes a file, runs a command and submits.
  const coding = async () => {
    const res = await request('coding start', 'POST', `/api/agents/${pullAgents[0]!.id}/sandbox`, {
      task: CODING_TASK,
      deadline_seconds: CODING_DEADLINE_SECONDS,
    });
    if (res?.status === 202) {
      const { id } = (await res.json()) as { id: string };
      started.set(Number(id.split('-')[1]), 'coding pull');
    } else await res?.body?.cancel();
  };
  const judge = new SoakJudge(
    (kind, method, url, body) => request(kind, method, url, body, cast.judge.apiKey),
    deadlineSeconds,
  );
  const pages = ['/', '/users', ...pushAgents.slice(0, 2).map((a) => `/agents/${a.id}`)];
  const load: Record<LoadKind, () => Promise<void>> = {
    'sandbox push': sandbox('push'),
    'sandbox pull': sandbox('pull'),
    page: async () => void (await request('page', 'GET', pages[turn++ % pages.length]!))?.body?.cancel(),
    feed: async () => {
      const all = [...pushAgents, ...pullAgents];
      const res = await request('feed', 'GET', `/api/agents/${all[turn++ % all.length]!.id}/activity`);
      await res?.body?.cancel();
    },
    'live battle': judge.liveBattle,
    judge: judge.judgeNext,
    coding,
  };
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<void>>();
  for (const [kind, perSecond] of Object.entries(rates) as Array<[LoadKind, number]>) {
    if (!(perSecond > 0)) continue;
    let running = 0;
    timers.push(
      setInterval(() => {
        if (running >= MAX_IN_FLIGHT) return;
        running++;
        const p = load[kind]()
          .catch(() => undefined)
          .finally(() => {
            running--;
            inFlight.delete(p);
          });
        inFlight.add(p);
      }, 1000 / perSecond),
    );
  }
  return {
    started,
    judge,
    stop: () => {
      for (const t of timers.splice(0)) clearInterval(t);
    },
    drain: async () => void (await Promise.all([...inFlight])),
  };
}
