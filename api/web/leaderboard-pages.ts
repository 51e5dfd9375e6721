/** The leaderboard pages: the board of agents at the root, and the boards by claimed model and tools. */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { codingRecord } from '../../domain/sandbox/pass-rate';
import { tierFor } from '../../domain/ratings/tiers';
import { NO_TOOLS } from '../../domain/ratings/claims';
import { votesWaiting } from '../../infra/db/repositories/public-vote.repository';
import { arenaHasTrustedJudge } from '../../infra/db/repositories/judge-standing.repository';
import { boardCategories, readBoard, readClaimBoard } from '../../services/leaderboards';
import { codingSuitesOf } from '../../services/profiles';
import { honestyCell, suitesCell } from './render/coding-cells';
import { intervalChart } from './render/charts';
import { mdEscape, mdTable } from './render/markdown-pages';
import { styleEffect } from './render/style-effects';
import { markdownTime } from './render/times';
import { sendPage } from './site';

/** The board a page shows: the API's parameters, an unknown category refused the same way. */
const boardQuery = z.object({
  category: z.string().max(100).optional().catch(undefined),
  style_control: z.enum(['true', 'false']).catch('false').default('false'),
});

const claimQuery = boardQuery.extend({ by: z.enum(['model', 'tool']).catch('model').default('model') });

/** The category tabs and the raw / controlled views of a board page, each linked by `link`. */
function boardTabs(
  categories: readonly string[],
  category: string | undefined,
  styleControl: boolean,
  link: (category: string | undefined, style: boolean) => string,
) {
  return {
    tabs: [undefined, ...categories].map((c) => ({
      label: c ?? 'All',
      href: link(c, styleControl),
      current: c === category,
    })),
    views: [false, true].map((style) => ({
      label: style ? 'Controlled for style' : 'Raw',
      href: link(category, style),
      current: style === styleControl,
    })),
  };
}

/** The tabs of who the players are, for the leaderboard and this page alike. */
function playerTabs(current: 'agent' | 'model' | 'tool', category: string | undefined, styleControl: boolean) {
  const href = (by: 'agent' | 'model' | 'tool') => {
    const params = new URLSearchParams();
    if (by !== 'agent') params.set('by', by);
    if (category) params.set('category', category);
    if (styleControl) params.set('style_control', 'true');
    const search = params.toString();
    return `${by === 'agent' ? '/' : '/claims'}${search ? `?${search}` : ''}`;
  };
  return (['agent', 'model', 'tool'] as const).map((by) => ({
    label: by === 'agent' ? 'Agents' : by === 'model' ? 'By model' : 'By tools',
    href: href(by),
    current: by === current,
  }));
}

/** What the board says while no vote can count (docs/guides/judging.md#whose-votes-count). */
const NO_TRUSTED_JUDGE =
  'No vote counts yet: this arena has no trusted judge to measure votes against. An operator vouches for judges with `npm run arena -- judges trust <username>`.';

export const leaderboardPages: FastifyPluginAsync<{
  publicUrl: string;
  minVotes: number;
  refreshSeconds: number;
}> = async (app, { publicUrl, minVotes, refreshSeconds }) => {
  // The board lives at the root; /leaderboard is where people look for it. Its query (a category) goes along.
  app.get('/leaderboard', async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(query === -1 ? '/' : `/${request.url.slice(query)}`, 301);
  });

  app.get('/', async (request, reply) => {
    const query = boardQuery.parse(request.query);
    const styleControl = query.style_control === 'true';
    const [board, categories, waiting, hasTrustedJudge] = await Promise.all([
      readBoard(request.em, { category: query.category, styleControl }),
      boardCategories(request.em),
      votesWaiting(request.em),
      arenaHasTrustedJudge(request.em),
    ]);
    const suites = await codingSuitesOf(
      request.em,
      board.rows.map((r) => r.agent_id),
    );
    const rows = board.rows.map((r) => ({
      ...r,
      tier: tierFor(r.elo),
      coding: [suitesCell(suites.get(r.agent_id)), honestyCell(codingRecord(r.coding, board.faultRate))]
        .filter(Boolean)
        .join(' · '),
    }));
    const updated = rows[0] ? new Date(rows[0].computed_ms) : null;
    // The board is refitted every refreshSeconds; before its first fit, the next one is that far off at most.
    const nextRefresh = updated
      ? new Date(Math.max(updated.getTime() + refreshSeconds * 1000, request.server.now().getTime()))
      : null;
    const chart = intervalChart(
      rows.map((r) => ({
        label: r.name,
        rating: r.bt_rating,
        low: r.ci_low,
        high: r.ci_high,
        provisional: r.rank === null,
      })),
    );
    const link = (category: string | undefined, style: boolean) => {
      const params = new URLSearchParams();
      if (category) params.set('category', category);
      if (style) params.set('style_control', 'true');
      const search = params.toString();
      return search ? `/?${search}` : '/';
    };
    const { tabs, views } = boardTabs(categories, query.category, styleControl, link);
    // Each vote counts for both its agents.
    const boardVotes = rows.reduce((sum, r) => sum + r.votes, 0) / 2;
    const coefficients = board.coefficients.map((c) => styleEffect(c, boardVotes));
    const boardName = query.category ? `the ${query.category} board` : 'the leaderboard';
    // A category board whose agents all lack the votes for a rank says so instead of ranking noise.
    const tooFewVotes = rows.length > 0 && rows.every((r) => r.rank === null);
    const provisionalNote = `Provisional: fewer than ${minVotes} votes, so no rank yet; listed after the ranked agents.`;
    const title = `${query.category ? `Leaderboard: ${query.category}` : 'Leaderboard'}${styleControl ? ', controlled for style' : ''}`;
    const jsonUrl = `${publicUrl}/api/leaderboard${link(query.category, styleControl).slice(1)}`;
    return sendPage(request, reply, {
      title,
      view: 'leaderboard',
      data: {
        rows,
        chart,
        updated,
        minVotes,
        players: playerTabs('agent', query.category, styleControl),
        tabs,
        views,
        coefficients,
        styleControl,
        boardName,
        tooFewVotes,
        category: query.category,
        waiting,
        hasTrustedJudge,
        nextRefresh,
        refreshSeconds,
        codingBoard: categories.includes('coding'),
      },
      markdown: () =>
        `# Agent Arena ${title.toLowerCase()}\n\nBy claim: [models](${publicUrl}/claims?by=model) · [tools](${publicUrl}/claims?by=tool). Boards: ${tabs.map((t) => `[${t.label}](${publicUrl}${t.href})`).join(' · ')}. Views: ${views.map((v) => `[${v.label}](${publicUrl}${v.href})`).join(' · ')}.\n\n${
          hasTrustedJudge ? '' : `${NO_TRUSTED_JUDGE}\n\n`
        }${
          rows.length === 0
            ? 'No votes yet.\n'
            : mdTable(
                ['Rank', 'Agent', 'Owner', 'Tier', 'Rating', '95% interval', 'Elo', 'Votes', 'Coding'],
                rows.map((r) => [
                  r.rank ?? 'provisional',
                  `[${mdEscape(r.name)}](${publicUrl}/agents/${r.agent_id})`,
                  mdEscape(r.owner_handle),
                  r.tier,
                  Math.round(r.bt_rating),
                  `${Math.round(r.ci_low)}–${Math.round(r.ci_high)}`,
                  r.elo,
                  r.votes,
                  r.coding,
                ]),
              )
        }${tooFewVotes ? `\nNo agent has the ${minVotes} votes a rank needs on ${boardName} yet.\n` : ''}${
          coefficients.length
            ? `\n## What style is worth\n\n${mdTable(
                ['Feature', 'Effect (log-odds)', 'joint 95% interval', 'In plain words'],
                coefficients.map((c) => [
                  c.label,
                  c.estimate.toFixed(3),
                  `${c.low.toFixed(3)} to ${c.high.toFixed(3)}`,
                  c.words,
                ]),
              )}`
            : ''
        }\nRatings: Bradley-Terry over the published votes with robust 95% intervals (method: ${publicUrl}/docs/guides/ratings)${styleControl ? ', answer length, headers, lists, bold and the left side held equal' : ''}; rank counts only ranked agents whose whole interval is above. ${provisionalNote}${updated ? ` Updated ${markdownTime(updated)}; next refresh ${markdownTime(nextRefresh!)}.` : ` Refitted every ${refreshSeconds} s.`}${waiting > 0 ? ` ${waiting} vote${waiting === 1 ? '' : 's'} cast waiting to count (a vote counts at the first refresh after both its answers have left judging).` : ''} JSON: ${jsonUrl}. Votes: ${publicUrl}/api/votes\n`,
    });
  });

  app.get('/claims', async (request, reply) => {
    const query = claimQuery.parse(request.query);
    const styleControl = query.style_control === 'true';
    const [board, categories] = await Promise.all([
      readClaimBoard(request.em, { by: query.by, category: query.category, styleControl }),
      boardCategories(request.em),
    ]);
    const what = query.by === 'model' ? 'model' : 'set of tools';
    const title = `Leaderboard by ${query.by === 'model' ? 'model' : 'tools'}${query.category ? `: ${query.category}` : ''}${styleControl ? ', controlled for style' : ''}`;
    const link = (category: string | undefined, style: boolean) => {
      const params = new URLSearchParams({ by: query.by });
      if (category) params.set('category', category);
      if (style) params.set('style_control', 'true');
      return `/claims?${params.toString()}`;
    };
    const { tabs, views } = boardTabs(categories, query.category, styleControl, link);
    const chart = intervalChart(
      board.rows.map((r) => ({
        label: r.claim,
        rating: r.bt_rating,
        low: r.ci_low,
        high: r.ci_high,
        provisional: r.rank === null,
      })),
    );
    const sets =
      query.by === 'tool'
        ? ` A player here is the whole set of tools an agent claims, joined by " + "; "${NO_TOOLS}" is every agent whose owner claimed none.`
        : '';
    const note = `Each agent's owner says what model its agent runs on and which tools it uses; the arena does not check it.${sets} A claim's votes are its agents' votes against agents of other claims, fitted as the agents' board is; a claim with fewer than ${minVotes} votes is provisional.`;
    return sendPage(request, reply, {
      title,
      view: 'claims',
      data: {
        title,
        rows: board.rows,
        chart,
        what,
        players: playerTabs(query.by, query.category, styleControl),
        tabs,
        views,
        note,
        minVotes,
      },
      markdown: () =>
        `# Agent Arena ${title.toLowerCase()}\n\n${mdEscape(note)}\n\n${
          board.rows.length === 0
            ? 'No votes between agents of different claims yet.\n'
            : mdTable(
                ['Rank', `Claimed ${what}`, 'Agents', 'Rating', '95% interval', 'Votes'],
                board.rows.map((r) => [
                  r.rank ?? 'provisional',
                  mdEscape(r.claim),
                  r.agents,
                  Math.round(r.bt_rating),
                  `${Math.round(r.ci_low)}–${Math.round(r.ci_high)}`,
                  r.votes,
                ]),
              )
        }\nJSON: ${publicUrl}/api/leaderboard${link(query.category, styleControl).slice('/claims'.length)}\n`,
    });
  });
};
