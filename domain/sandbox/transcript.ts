/**
 * A coding session as its feed entry tells it: the agent's own summary, then each step as a
 * `tool_call` fence and its `tool_result` (the website folds them), then the score. Long outputs
 * are cut so the whole stays within a feed entry's size.
 */
import { MAX_RESPONSE_CHARS } from '../deliveries';
import { UNCOMPARED } from './harness-report';

export interface TranscriptStep {
  n: number;
  kind: string;
  request: Record<string, unknown>;
  result: Record<string, unknown> | null;
  duration_ms: number;
}

/** What one step's result may show of each output. */
const SHOWN_OUTPUT_CHARS = 2_000;

function cut(text: string, max = SHOWN_OUTPUT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

/** A fence longer than any run of `~` in its content, so no content can close it early. */
function fenced(kind: 'tool_call' | 'tool_result', content: string): string {
  const longest = Math.max(0, ...[...content.matchAll(/~+/g)].map((m) => m[0].length));
  const fence = '~'.repeat(Math.max(3, longest + 1));
  return `${fence}${kind}\n${content.replace(/\n$/, '')}\n${fence}`;
}

function callOf(step: TranscriptStep): string {
  const r = step.request;
  if (step.kind === 'exec') {
    const command = Array.isArray(r.command)
      ? (r.command as string[]).map((a) => JSON.stringify(a)).join(' ')
      : String(r.command);
    return `exec ${command}${r.stdin ? ` (stdin: ${String(r.stdin).length} characters)` : ''}`;
  }
  if (step.kind === 'write')
    return `write ${String(r.path)} (${String(r.content ?? '').length} characters)\n${cut(String(r.content ?? ''))}`;
  return `${step.kind} ${String(r.path ?? '.')}`;
}

function resultOf(step: TranscriptStep): string {
  const r = step.result ?? {};
  const refused = r.refused as { detail?: string } | undefined;
  if (refused) return `refused: ${refused.detail ?? ''}`;
  if (step.kind === 'exec') {
    const lines = [
      `exit ${String(r.exit_code)} in ${step.duration_ms} ms${r.truncated ? ' (output cut at 64 KiB)' : ''}${r.cancelled ? ', stopped: the client cancelled the call' : ''}`,
    ];
    if (r.stdout) lines.push(`stdout:\n${cut(String(r.stdout))}`);
    if (r.stderr) lines.push(`stderr:\n${cut(String(r.stderr))}`);
    return lines.join('\n');
  }
  if (step.kind === 'read' && r.type === 'dir') {
    const entries = (r.entries as Array<{ name: string; type: string }> | undefined) ?? [];
    return entries.map((e) => (e.type === 'dir' ? `${e.name}/` : e.name)).join('\n') || '(empty folder)';
  }
  if (step.kind === 'read') return cut(String(r.content ?? ''));
  return 'written';
}

/**
 * A step as the transcript shows it, and no more: what a step's row keeps once its retention period
 * is over. Outputs, a written file and stdin are cut as the transcript cuts them; the rest is kept.
 */
export function stepAsShown(
  kind: string,
  request: Record<string, unknown>,
  result: Record<string, unknown> | null,
): { request: Record<string, unknown>; result: Record<string, unknown> | null } {
  const text = (value: unknown) => (typeof value === 'string' ? cut(value) : value);
  const shownRequest = { ...request };
  if (kind === 'exec') {
    shownRequest.command = Array.isArray(request.command) ? request.command : text(request.command);
    if (request.stdin !== undefined) shownRequest.stdin = text(request.stdin);
  }
  if (kind === 'write') shownRequest.content = text(request.content);
  if (!result || result.refused) return { request: shownRequest, result };
  const shownResult = { ...result };
  if (kind === 'exec') {
    shownResult.stdout = text(result.stdout);
    shownResult.stderr = text(result.stderr);
  }
  if (kind === 'read' && result.type === 'file') shownResult.content = text(result.content);
  return { request: shownRequest, result: shownResult };
}

export interface TranscriptScore {
  status: string;
  testsPassed?: number;
  testsTotal?: number;
  error?: string;
  /** The run of the hidden tests was tampered with: why (it scored 0). */
  tampered?: string;
  /** Why the run gave no score the arena believes. */
  scoreNote?: string;
  /** The agent's files left out of the clean room. */
  leftOut?: readonly string[];
  /** The judge could not compare some values of the code (the owner's view of the error names them). */
  uncompared?: boolean;
}

/** The lines under the score that say how it came about, when there is more to say than the count. */
function scoreNotes(score: TranscriptScore): string {
  const notes: string[] = [];
  if (score.tampered) notes.push(`**Tampered with**: ${score.tampered}. The run scores 0.`);
  if (score.scoreNote) notes.push(`Scored 0: ${score.scoreNote}.`);
  if (score.leftOut?.length) notes.push(`Not carried into the clean room: ${score.leftOut.join(', ')}.`);
  if (score.uncompared) notes.push(`Note: ${UNCOMPARED} (the error names them to the owner).`);
  return notes.map((note) => `\n${note}`).join('');
}

export function codingTranscript(
  summary: string | null,
  steps: readonly TranscriptStep[],
  score: TranscriptScore,
): string {
  const head = summary?.trim() ? `${summary.trim()}\n\n` : '';
  const tail =
    score.testsTotal !== undefined
      ? `\n\n**${score.status}**: ${score.testsPassed ?? 0} of ${score.testsTotal} hidden tests passed, in ${steps.length} steps.${scoreNotes(score)}`
      : `\n\n**${score.status}**${score.error ? `: ${score.error}` : ''}, after ${steps.length} steps.`;
  const budget = MAX_RESPONSE_CHARS - head.length - tail.length - 200;
  const parts: string[] = [];
  let used = 0;
  for (const [i, step] of steps.entries()) {
    const part = `${fenced('tool_call', callOf(step))}\n${fenced('tool_result', resultOf(step))}`;
    if (used + part.length > budget) {
      parts.push(`… ${steps.length - i} more steps not shown.`);
      break;
    }
    parts.push(part);
    used += part.length + 2;
  }
  return `${head}${parts.join('\n\n')}${tail}`.slice(0, MAX_RESPONSE_CHARS);
}
