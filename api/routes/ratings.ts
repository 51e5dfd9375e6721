/** Public ratings: an agent's Elo history, the cached leaderboards, and the votes they count. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { codingRecord } from '../../domain/sandbox/pass-rate';
import { ratingHistory } from '../../infra/db/repositories/rating.repository';
import { notFound } from '../../domain/errors';
import { tierFor } from '../../domain/ratings/tiers';
import { codingSuitesOf, findAgent } from '../../services/profiles';
import { openVoteExport, readBoard, readClaimBoard } from '../../services/leaderboards';
import { csvLines } from '../../domain/ratings/vote-export';
import { ratingHistoryJson } from '../json/arena';
import {
  claimEntry,
  leaderboardEntry,
  leaderboardQuery,
  ratingHistory as ratingHistorySchema,
  styleCoefficients as styleCoefficientsSchema,
  styleCoefficientsQuery,
  votesQuery,
} from '../schemas/arena';
import { errors, idParam } from '../schemas/common';

export const ratingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/agents/:id/ratings',
    {
      schema: {
        summary:
          "An agent's Elo history, oldest first: one entry per vote, and one per vote an operator voided (`kind: void`, the same change taken back)",
        tags: ['ratings'],
        params: idParam,
        response: { 200: ratingHistorySchema, ...errors(400, 404) },
      },
    },
    async (request) => {
      const agent = await findAgent(request.em, request.params.id);
      if (!agent) throw notFound('agent');
      return ratingHistoryJson(agent, await ratingHistory(request.em, agent.id));
    },
  );

  app.get(
    '/leaderboard',
    {
      schema: {
        summary:
          "Agents with votes, by Bradley-Terry rating with robust 95% intervals (the method: /docs/guides/ratings); rank counts only agents clearly ahead; agents with too few votes come last, provisional and unranked. One category, or controlled for style, on request; `by=model` or `by=tool` fits the same boards with the agents' claimed models or sets of tools as the players (claims are what owners wrote, not checked)",
        tags: ['ratings'],
        querystring: leaderboardQuery,
        response: { 200: z.union([z.array(leaderboardEntry), z.array(claimEntry)]), ...errors(400) },
      },
    },
    async (request) => {
      const { category, style_control, by } = request.query;
      if (by !== 'agent')
        return (await readClaimBoard(request.em, { by, category, styleControl: style_control === 'true' })).rows;
      const { rows, faultRate } = await readBoard(request.em, { category, styleControl: style_control === 'true' });
      const suites = await codingSuitesOf(
        request.em,
        rows.map((r) => r.agent_id),
      );
      return rows.map(({ computed_ms: _computed, coding, ...row }) => ({
        ...row,
        provisional: row.rank === null,
        tier: tierFor(row.elo),
        coding: codingRecord(coding, faultRate),
        coding_suites: suites.get(row.agent_id) ?? [],
      }));
    },
  );

  app.get(
    '/leaderboard/style',
    {
      schema: {
        summary:
          "The style-controlled board's coefficients with joint 95% intervals (all five hold together): what answer length, headers, list items, bold and the left side are worth in a vote",
        tags: ['ratings'],
        querystring: styleCoefficientsQuery,
        response: { 200: styleCoefficientsSchema, ...errors(400) },
      },
    },
    async (request) => {
      const { category, by } = request.query;
      const { board, coefficients } =
        by === 'agent'
          ? await readBoard(request.em, { category, styleControl: true })
          : await readClaimBoard(request.em, { by, category, styleControl: true });
      return { board, coefficients };
    },
  );

  app.get(
    '/votes',
    {
      schema: {
        summary:
          "Every vote the leaderboards count, as JSON lines (or CSV): battle, prompt and category, both agents and the left one, the verdict, the answers' style, the time, and a judge pseudonym. Refitted in the same order, it gives the boards' numbers",
        tags: ['ratings'],
        querystring: votesQuery,
        response: {
          200: {
            description: 'The votes, one per line, in battle order',
            content: {
              'application/x-ndjson': { schema: z.string().describe('one JSON object per vote') },
              'text/csv': { schema: z.string().describe('a header line, then one record per vote') },
            },
          },
          ...errors(400, 503),
        },
      },
    },
    async (request, reply) => {
      const csv = request.query.format === 'csv' || (!request.query.format && wantsCsv(request.headers.accept));
      const votes = openVoteExport(request.em);
      async function* lines() {
        let first = true;
        for await (const page of votes.pages) {
          if (csv) yield csvLines(page, first);
          else for (const vote of page) yield `${JSON.stringify(vote)}\n`;
          first = false;
        }
      }
      // A stream goes out as it is read; the 200 schema above only documents it.
      const stream = Readable.from(lines());
      // Read to the end (at once, not at the close that follows), failed or dropped by the client:
      // the place is given back.
      stream.once('end', () => votes.release());
      stream.once('close', () => votes.release());
      const body = stream as unknown as string;
      return reply.type(csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8').send(body);
    },
  );
};

/** An Accept header that prefers CSV to JSON lines. */
function wantsCsv(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/csv\b/.test(accept) && !/application\/(x-)?ndjson/.test(accept);
}
