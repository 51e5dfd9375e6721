/** Judging on the website: `/judge` (the next anonymous pair), `/battle` (a live battle on your own prompt), votes and reveals. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pathId } from '../schemas/common';
import { describeIssues } from '../validation';
import type { AbuseLimits, ArenaSettings } from '../../infra/config';
import { perAccountPerMinute } from '../plugins/rate-limits';
import type { BattleWithAnswers } from '../../infra/db/repositories/battle.repository';
import { VERDICTS, type Verdict } from '../../domain/arena';
import { ArenaError } from '../../domain/errors';
import {
  battleOfJudge,
  judgeStanding,
  nextBattle,
  revealOf,
  voteOnBattle,
  type VoteResult,
} from '../../services/judging';
import { startLiveBattleFor } from '../../services/live-battles';
import type { WorkflowDeps } from '../../services/workflow-client';
import { expectedFailure } from '../errors';
import { judgeOf } from '../client-address';
import { liveBattleCreate } from '../schemas/arena';
import { renderMarkdown } from './render/markdown';
import { mdEscape, mdFenced } from './render/markdown-pages';
import { markdownTime } from './render/times';
import { sendErrorPage, sendPage } from './site';

const VERDICT_LABELS: Record<Verdict, string> = {
  a: 'A is better',
  b: 'B is better',
  tie: 'A tie',
  both_bad: 'Both bad',
};
// Canonical ids only, as on the API: /agents/0x1 is no page.
const idParam = z.object({ id: pathId });
const voteForm = z.object({
  winner: z.enum(VERDICTS),
  from: z.enum(['judge', 'battle']).catch('battle').default('battle'),
});
const battleForm = z.object({
  prompt: z.string().default(''),
  category: z.string().default(''),
  // A checked box sends `on`; an unchecked one sends nothing.
  offer_to_pool: z
    .string()
    .optional()
    .transform((v) => v !== undefined),
});
const judgeQuery = z.object({ voted: z.coerce.number().int().positive().max(2147483647).optional().catch(undefined) });

/** A battle as the templates show it: Markdown rendered, sides named, agents only once revealed. */
function battleModel(row: BattleWithAnswers, reveal: VoteResult | null) {
  const side = (key: 'a' | 'b') => {
    const status = key === 'a' ? row.a_status : row.b_status;
    const response = key === 'a' ? row.a_response : row.b_response;
    return {
      key,
      label: key.toUpperCase(),
      status,
      html: response === null ? null : renderMarkdown(response),
      error: key === 'a' ? row.a_error : row.b_error,
      /** A pending side's answer is due by then; a live battle hands a side that misses it to another agent once. */
      due: new Date(key === 'a' ? row.a_due_ms : row.b_due_ms),
      agent: reveal ? reveal[key] : null,
    };
  };
  return {
    id: row.id,
    live: row.live,
    status: row.status,
    category: row.category,
    promptHtml: renderMarkdown(row.prompt),
    sides: [side('a'), side('b')],
  };
}

function revealModel(reveal: VoteResult) {
  return {
    verdict: `Your vote: ${VERDICT_LABELS[reveal.winner]}`,
    note: reveal.judge.note,
    sides: (['a', 'b'] as const).map((key) => ({ label: key.toUpperCase(), ...reveal[key] })),
  };
}

function battleMarkdown(row: BattleWithAnswers, reveal: VoteResult | null): string {
  const side = (key: 'a' | 'b') => {
    const [status, response, error] =
      key === 'a' ? [row.a_status, row.a_response, row.a_error] : [row.b_status, row.b_response, row.b_error];
    const who = reveal
      ? ` (${mdEscape(reveal[key].name)}: Elo ${reveal[key].elo_before} → ${reveal[key].elo_after})`
      : '';
    const due = key === 'a' ? row.a_due_ms : row.b_due_ms;
    const body =
      status === 'answered'
        ? mdFenced(response ?? '')
        : status === 'pending'
          ? `_waiting for this answer until ${markdownTime(new Date(due))}_`
          : `_${status}${error ? `: ${mdEscape(error)}` : ''}_`;
    return `## Answer ${key.toUpperCase()}${who}\n\n${body}\n`;
  };
  const vote =
    row.status === 'open'
      ? `Vote with POST /api/judge/${row.id}/vote {"winner": "a" | "b" | "tie" | "both_bad"}.\n`
      : '';
  const verdict = reveal
    ? `Verdict: ${VERDICT_LABELS[reveal.winner]}.\n\n${reveal.judge.note ? `${mdEscape(reveal.judge.note)}\n\n` : ''}`
    : '';
  const live = row.live
    ? 'A live battle is your own comparison: its vote is shown and public, but moves no Elo and counts on no leaderboard.\n\n'
    : '';
  return `# Battle ${row.id} (${row.status})\n\n${live}${verdict}**Prompt** (${mdEscape(row.category)}):\n\n${mdFenced(row.prompt)}\n\n${side('a')}\n${side('b')}\n${vote}`;
}

export const battlePages: FastifyPluginAsync<{
  workflows: WorkflowDeps;
  arena: ArenaSettings;
  limits: AbuseLimits;
}> = async (app, deps) => {
  app.addHook('onRequest', app.requireWebUser);

  app.get('/judge', async (request, reply) => {
    const judgeId = request.webUser!.id;
    const { voted } = judgeQuery.parse(request.query);
    // A reveal link for a battle that is not (or no longer) this judge's just shows no reveal; any other failure is a fault.
    const previous = voted
      ? await battleOfJudge(request.em, judgeId, voted).catch((err: unknown) => {
          if (err instanceof ArenaError && err.kind === 'not_found') return undefined;
          throw err;
        })
      : undefined;
    const reveal = previous ? await revealOf(request.em, deps.arena, previous) : null;
    const battle = await nextBattle(request.em, deps.arena, judgeOf(request, judgeId));
    // Where the judge stands, unless the reveal just said it.
    const standing = reveal ? null : await judgeStanding(request.em, deps.arena, judgeId);
    return sendPage(request, reply, {
      title: 'Judge',
      view: 'judge',
      data: {
        battle: battle ? battleModel(battle, null) : null,
        reveal: reveal ? revealModel(reveal) : null,
        standingNote: standing?.note ?? null,
        from: 'judge',
      },
      markdown: () =>
        (battle ? battleMarkdown(battle, null) : '# Judge\n\nNothing is left for you to judge right now.\n') +
        (standing?.note ? `\n${mdEscape(standing.note)}\n` : ''),
    });
  });

  const newBattlePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    form: { prompt?: string; category?: string; offer_to_pool?: boolean; error?: string; status?: number },
  ) =>
    sendPage(request, reply, {
      title: 'Start a live battle',
      view: 'battle-new',
      status: form.status,
      data: {
        prompt: form.prompt ?? '',
        category: form.category ?? '',
        offerToPool: form.offer_to_pool ?? false,
        error: form.error ?? null,
      },
      markdown: () =>
        '# Start a live battle\n\nSend a prompt of your own to two agents at once: POST /api/battles {"prompt": "..."}; add "offer_to_pool": true to offer it to the main pool.\n',
    });

  app.get('/battle', async (request, reply) => newBattlePage(request, reply, {}));

  app.post(
    '/battle',
    { config: perAccountPerMinute('battle', deps.limits.battlesPerMinute), preHandler: app.csrfProtection },
    async (request, reply) => {
      const form = battleForm.safeParse(request.body ?? {});
      const raw = form.success ? form.data : { prompt: '', category: '', offer_to_pool: false };
      const parsed = liveBattleCreate.safeParse({
        prompt: raw.prompt,
        ...(raw.category.trim() ? { category: raw.category } : {}),
        offer_to_pool: raw.offer_to_pool,
      });
      if (!parsed.success) {
        const detail = describeIssues(parsed.error.issues, 'form');
        return newBattlePage(request, reply, { ...raw, error: detail, status: 400 });
      }
      let battle: BattleWithAnswers;
      try {
        battle = await startLiveBattleFor(request.em, deps, judgeOf(request, request.webUser!.id), parsed.data);
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return newBattlePage(request, reply, { ...raw, error: failure.detail, status: failure.status });
      }
      return reply.redirect(`/battle/${battle.id}`, 303);
    },
  );

  app.get('/battle/:id', async (request, reply) => {
    const params = idParam.safeParse(request.params);
    if (!params.success) return sendErrorPage(request, reply, 404, 'battle not found');
    const battle = await battleOfJudge(request.em, request.webUser!.id, params.data.id);
    const reveal = await revealOf(request.em, deps.arena, battle);
    return sendPage(request, reply, {
      title: `Battle ${battle.id}`,
      view: 'battle',
      live: battle.status === 'running',
      data: { battle: battleModel(battle, reveal), reveal: reveal ? revealModel(reveal) : null, from: 'battle' },
      markdown: () => battleMarkdown(battle, reveal),
    });
  });

  app.post(
    '/battle/:id/vote',
    { config: perAccountPerMinute('vote', deps.limits.votesPerMinute), preHandler: app.csrfProtection },
    async (request, reply) => {
      const params = idParam.safeParse(request.params);
      if (!params.success) return sendErrorPage(request, reply, 404, 'battle not found');
      const form = voteForm.safeParse(request.body ?? {});
      if (!form.success)
        return sendErrorPage(request, reply, 400, 'choose one of: A is better, B is better, tie, both bad');
      await voteOnBattle(request.em, deps, judgeOf(request, request.webUser!.id), params.data.id, form.data.winner);
      return reply.redirect(
        form.data.from === 'judge' ? `/judge?voted=${params.data.id}` : `/battle/${params.data.id}`,
        303,
      );
    },
  );
};
