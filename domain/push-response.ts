/** Reading a push agent's HTTP answer: a 2xx JSON `{response: string}` is an answer, anything else an error an owner can act on. */
import { EMPTY_RESPONSE, isBlankAnswer, MAX_RESPONSE_CHARS } from './sessions';

export type PushAnswer = { ok: true; response: string } | { ok: false; error: string };

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
  if (response.length > MAX_RESPONSE_CHARS) {
    return { ok: false, error: `the webhook's response is longer than ${MAX_RESPONSE_CHARS} characters` };
  }
  if (isBlankAnswer(response)) return { ok: false, error: EMPTY_RESPONSE };
  return { ok: true, response };
}
