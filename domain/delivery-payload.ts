/**
 * What an agent receives for a delivery, built in one place for both modes: the JSON a push agent
 * is POSTed and the work item a pull runner's long-poll returns. Pure; the callers read the rows.
 */
import type { SandboxPayload } from './sandbox/payload';
import { deliveryPublicId, type SessionKind } from './sessions';

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
  kind: SessionKind;
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
  delivery: { kind: SessionKind; id: number; redeliveryOfId: number | null },
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
