/**
 * A delivery on the wire, in one place for both modes: the JSON a push agent is POSTed and the
 * work item a pull runner's long-poll returns, and how a push agent's answer is read. Pure; the
 * callers read the rows and make the requests.
 */
import type { SandboxPayload } from './sandbox/payload';
import { deliveryPublicId, EMPTY_RESPONSE, isBlankAnswer, MAX_RESPONSE_CHARS, type DeliveryKind } from './deliveries';

/** The delivery's prompt, as the payload needs it. */
export interface DeliveryPrompt {
  promptId: number;
  text: string;
  category: string;
  /** The agent's deadline, whole seconds: for a work item, counted from its lease. */
  deadlineSeconds: number;
  /** A coding session's sandbox: where its steps go and the token that takes them. */
  sandbox?: SandboxPayload;
}

export interface PromptPayload {
  prompt_id: number;
  prompt: string;
  category: string;
  deadline_seconds: number;
  sandbox?: SandboxPayload;
}

export interface WorkPayload extends PromptPayload {
  kind: DeliveryKind;
  work_id: string;
  redelivery_of?: string;
}

/** The push body: the prompt and its deadline (the delivery's id travels in a header). */
export function promptPayload({ promptId, text, category, deadlineSeconds, sandbox }: DeliveryPrompt): PromptPayload {
  return {
    prompt_id: promptId,
    prompt: text,
    category,
    deadline_seconds: deadlineSeconds,
    ...(sandbox ? { sandbox } : {}),
  };
}

/** A work item: the prompt, with the ids a runner posts its result to and de-duplicates by. */
export function workPayload(
  prompt: DeliveryPrompt,
  delivery: { kind: DeliveryKind; id: number; redeliveryOfId: number | null },
): WorkPayload {
  const { sandbox, ...rest } = promptPayload(prompt);
  return {
    ...rest,
    kind: delivery.kind,
    work_id: deliveryPublicId(delivery.kind, delivery.id),
    ...(delivery.redeliveryOfId === null
      ? {}
      : { redelivery_of: deliveryPublicId(delivery.kind, delivery.redeliveryOfId) }),
    ...(sandbox ? { sandbox } : {}),
  };
}

export type PushAnswer = { ok: true; response: string } | { ok: false; error: string };

/** Reads a push agent's HTTP answer: a 2xx JSON `{response: string}` is an answer, anything else an error an owner can act on. */
export function interpretPushResponse(status: number, body: string): PushAnswer {
  if (status < 200 || status > 299) return { ok: false, error: `the webhook answered HTTP ${status}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: `the webhook answered HTTP ${status} with a body that is not JSON` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: 'the webhook answered JSON that is not an object; expected {"response": "..."}' };
  }
  const response = (parsed as Record<string, unknown>).response;
  if (response === undefined) return { ok: false, error: 'the webhook answered JSON without a "response" field' };
  if (typeof response !== 'string')
    return { ok: false, error: 'the webhook answered a "response" that is not a string' };
  return acceptAnswerText(response, "the webhook's response");
}

/** The rules every answer meets, however it came (`from` names it): at most MAX_RESPONSE_CHARS, and not blank. */
export function acceptAnswerText(response: string, from: string): PushAnswer {
  if (response.length > MAX_RESPONSE_CHARS) {
    return { ok: false, error: `${from} is longer than ${MAX_RESPONSE_CHARS} characters` };
  }
  if (isBlankAnswer(response)) return { ok: false, error: EMPTY_RESPONSE };
  return { ok: true, response };
}
