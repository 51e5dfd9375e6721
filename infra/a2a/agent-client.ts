/**
 * Speaking A2A to an agent through the official SDK: reading its card and choosing its JSON-RPC
 * interface (A2A 1.0, or 0.3 through the SDK's compatibility layer), the prompt as a message, and
 * the answer read out of a message or a task. The wire work is the SDK's; the arena only chooses.
 */
import {
  AGENT_CARD_PATH,
  Role,
  TaskState,
  type AgentCard,
  type AgentInterface,
  type Message,
  type Part,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** An agent card is a small document; a larger one is refused rather than stored. */
export const MAX_CARD_BYTES = 64 * 1024;
const JSON_RPC = 'JSONRPC';

export type CardReading =
  { ok: true; card: Record<string, unknown>; endpoint: string; protocolVersion: string } | { ok: false; error: string };

/** What an agent's reply says: an answer, a task still going, or the agent's own failure. */
export type A2aReply =
  | { kind: 'answer'; text: string }
  | { kind: 'working'; taskId: string }
  /** The agent's own failure; `openTaskId` names a task still open (asking for input), to cancel. */
  | { kind: 'failed'; error: string; openTaskId?: string };

/** The prompt as A2A gives it: one text part, and what the arena says of it as metadata. */
export interface A2aPrompt {
  messageId: string;
  text: string;
  metadata: Record<string, unknown>;
}

function resolver(fetchImpl: typeof fetch): DefaultAgentCardResolver {
  return new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
}

/**
 * Where else the card of an agent given by a base URL (any URL not naming a `.json` file) may be, as
 * A2A clients resolve it: the well-known path under the URL's path (the Python SDK's rule), then at
 * the host's root (the JavaScript SDK's, for a path without a trailing slash). None for a `.json` URL.
 */
export function wellKnownCardUrls(cardUrl: string): string[] {
  const url = new URL(cardUrl);
  if (url.pathname.endsWith('.json')) return [];
  url.search = '';
  url.hash = '';
  const underPath = new URL(`${url.pathname.replace(/\/*$/, '/')}${AGENT_CARD_PATH}`, url).href;
  const atRoot = new URL(`/${AGENT_CARD_PATH}`, url).href;
  return underPath === atRoot ? [underPath] : [underPath, atRoot];
}

/**
 * Reads the card at `cardUrl` (through the guarded fetch) and says which interface the arena will
 * call. A base URL that does not answer with a card is looked up as A2A clients do (wellKnownCardUrls).
 */
export async function readAgentCard(fetchImpl: typeof fetch, cardUrl: string, timeoutMs: number): Promise<CardReading> {
  const signal = AbortSignal.timeout(timeoutMs);
  const given = await readCardAt(fetchImpl, cardUrl, signal);
  if (given.ok) return given;
  const others = wellKnownCardUrls(cardUrl);
  for (const url of others) {
    const reading = await readCardAt(fetchImpl, url, signal);
    if (reading.ok) return reading;
  }
  return others.length === 0
    ? given
    : { ok: false, error: `${given.error}, and there is no card at ${others.join(' or ')}` };
}

async function readCardAt(fetchImpl: typeof fetch, cardUrl: string, signal: AbortSignal): Promise<CardReading> {
  let body: string;
  try {
    const response = await fetchImpl(cardUrl, {
      headers: { 'A2A-Version': '1.0', accept: 'application/json' },
      signal,
    });
    if (!response.ok) return { ok: false, error: `the agent card at ${cardUrl} answered HTTP ${response.status}` };
    body = await response.text();
  } catch (err) {
    return { ok: false, error: `the agent card at ${cardUrl} could not be read: ${messageOf(err)}` };
  }
  if (Buffer.byteLength(body) > MAX_CARD_BYTES) {
    return { ok: false, error: `the agent card is larger than ${MAX_CARD_BYTES / 1024} KiB` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { ok: false, error: `the agent card at ${cardUrl} is not JSON` };
  }
  return describeCard(fetchImpl, raw);
}

/** Checks a card already read: a JSON object the SDK can read, naming a JSON-RPC interface. */
export function describeCard(fetchImpl: typeof fetch, raw: unknown): CardReading {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: 'the agent card is not a JSON object' };
  }
  let card: AgentCard;
  try {
    card = resolver(fetchImpl).normalizeAgentCard(raw);
  } catch (err) {
    return { ok: false, error: `the agent card could not be read as A2A 1.0 or 0.3: ${messageOf(err)}` };
  }
  const chosen = jsonRpcInterface(card);
  if (!chosen) {
    return {
      ok: false,
      error:
        'the agent card names no JSON-RPC interface (A2A 1.0: supportedInterfaces with protocolBinding "JSONRPC"; ' +
        '0.3: url with preferredTransport "JSONRPC"); the arena calls agents over JSON-RPC',
    };
  }
  if (typeof chosen.url !== 'string' || chosen.url === '') {
    return { ok: false, error: "the agent card's JSON-RPC interface has no url" };
  }
  return {
    ok: true,
    card: raw as Record<string, unknown>,
    endpoint: chosen.url,
    protocolVersion: chosen.protocolVersion,
  };
}

/** The JSON-RPC interface, preferring A2A 1.0 where the card offers both: the SDK's own rule. */
function jsonRpcInterface(card: AgentCard): AgentInterface | undefined {
  const offered = (card.supportedInterfaces ?? []).filter((i) => i.protocolBinding?.toUpperCase() === JSON_RPC);
  return offered.find((i) => i.protocolVersion === '1.0') ?? offered[0];
}

/**
 * A client for one agent, from its stored card: JSON-RPC only, 0.3 where the card says so, and a
 * send that returns at once (the arena follows the task) rather than blocking until it ends.
 */
export function a2aClient(fetchImpl: typeof fetch, card: Record<string, unknown>): Promise<Client> {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
    preferredTransports: [JSON_RPC],
    cardResolver: resolver(fetchImpl),
    clientConfig: { polling: true, acceptedOutputModes: ['text/plain'] },
  });
  return factory.createFromAgentCard(card as unknown as AgentCard);
}

export function promptMessage(prompt: A2aPrompt): Message {
  return {
    messageId: prompt.messageId,
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: prompt.text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: prompt.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Reads a reply to SendMessage or GetTask. */
export function readReply(result: Message | Task): A2aReply {
  if ('messageId' in result) return { kind: 'answer', text: textOf(result.parts) };
  const state = result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const said = textOf(result.status?.message?.parts ?? []);
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED: {
      const artifacts = result.artifacts.map((a) => textOf(a.parts)).filter((t) => t !== '');
      return { kind: 'answer', text: artifacts.length > 0 ? artifacts.join('\n') : said };
    }
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED:
    case TaskState.TASK_STATE_CANCELED:
      return { kind: 'failed', error: `the agent's task ended ${stateName(state)}${said ? `: ${said}` : ''}` };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return {
        kind: 'failed',
        error: `the agent's task asked for more (${stateName(state)}), which the arena does not give`,
        openTaskId: result.id,
      };
    default:
      return { kind: 'working', taskId: result.id };
  }
}

/** A task's state as the protocol's documents spell it: `TASK_STATE_INPUT_REQUIRED` is "input-required". */
function stateName(state: TaskState): string {
  return (TaskState[state] ?? 'unknown')
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

function textOf(parts: Part[]): string {
  return parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t !== '')
    .join('\n');
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
