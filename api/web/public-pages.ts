/** Public pages: the leaderboard, agent profiles with their feed, and users. */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { pathId } from '../schemas/common';
import { boardCategories, readBoard } from '../../services/leaderboards';
import { codingCell, codingNote, honestyCell, pct, suiteRow, suitesCell, wallTime } from './render/coding-cells';
import { codingRecord } from '../../domain/sandbox/pass-rate';
import { ratingHistory } from '../../infra/db/repositories/rating.repository';
import { agentFeed, gymCounts } from '../../infra/db/repositories/session-read.repository';
import { votesWaiting } from '../../infra/db/repositories/public-vote.repository';
import { isAgentActive } from '../../domain/agent-state';
import { tierFor } from '../../domain/ratings/tiers';
import { agentsOf } from '../../services/agents';
import { codingProfileOf, codingSuitesOf, findAgent, findUser, searchUsers } from '../../services/profiles';
import { publicUserEntryJson, publicUserJson } from '../json/accounts';
import { deliveryJson } from '../json/agents';
import { eloHistoryChart, intervalChart } from './render/charts';
import { renderMarkdown } from './render/markdown';
import { mdEscape, mdFenced, mdTable } from './render/markdown-pages';
import { markdownTime } from './render/times';
import { FAVICON_ICO, FAVICON_SVG, LIVE_JS, sendPage, SITE_CSS } from './site';
import { styleEffect } from './render/style-effects';
import { playerTabs } from './claim-pages';

const FEED_PAGE_SIZE = 20;
const USERS_PAGE_SIZE = 50;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1) });
// Canonical ids only, as on the API: /agents/0x1 is no page.
const idParam = z.object({ id: pathId });
/** What the owner's own page says of an arena answer in judging (no one else is shown it at all). */
const judgingNote = (s: { in_judging: boolean }) =>
  s.in_judging ? 'In judging: only you see this answer until judging ends.' : null;

/** The board a page shows: the API's parameters, an unknown category refused the same way. */
const boardQuery = z.object({
  category: z.string().max(100).optional().catch(undefined),
  style_control: z.enum(['true', 'false']).catch('false').default('false'),
});

export const publicPages: FastifyPluginAsync<{ publicUrl: string; minVotes: number; refreshSeconds: number }> = async (
  app,
  { publicUrl, minVotes, refreshSeconds },
) => {
  const notFound = (request: Parameters<typeof sendPage>[0], reply: Parameters<typeof sendPage>[1], message: string) =>
    sendPage(request, reply, {
      title: 'Not found',
      view: 'not-found',
      data: { message },
      markdown: () => `# Not found\n\n${mdEscape(message)}\n`,
      status: 404,
    });

  // The board lives at the root; /leaderboard is where people look for it. Its query (a category) goes along.
  app.get('/leaderboard', async (request, reply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(query === -1 ? '/' : `/${request.url.slice(query)}`, 301);
  });

  app.get('/', async (request, reply) => {
    const query = boardQuery.parse(request.query);
    const styleControl = query.style_control === 'true';
    const [board, categories, waiting] = await Promise.all([
      readBoard(request.em, { category: query.category, styleControl }),
      boardCategories(request.em),
      votesWaiting(request.em),
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
    const tabs = [undefined, ...categories].map((category) => ({
      label: category ?? 'All',
      href: link(category, styleControl),
      current: category === query.category,
    }));
    const views = [false, true].map((style) => ({
      label: style ? 'Controlled for style' : 'Raw',
      href: link(query.category, style),
      current: style === styleControl,
    }));
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
        nextRefresh,
        refreshSeconds,
        codingBoard: categories.includes('coding'),
      },
      markdown: () =>
        `# Agent Arena ${title.toLowerCase()}\n\nBy claim: [models](${publicUrl}/claims?by=model) · [tools](${publicUrl}/claims?by=tool). Boards: ${tabs.map((t) => `[${t.label}](${publicUrl}${t.href})`).join(' · ')}. Views: ${views.map((v) => `[${v.label}](${publicUrl}${v.href})`).join(' · ')}.\n\n${
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

  app.get('/agents/:id', async (request, reply) => {
    const params = idParam.safeParse(request.params);
    const agent = params.success ? await findAgent(request.em, params.data.id) : null;
    if (!agent) return notFound(request, reply, 'There is no agent with this id.');
    const page = pageQuery.parse(request.query).page;
    const [feed, history, gym, codingProfile] = await Promise.all([
      agentFeed(request.em, agent.id, FEED_PAGE_SIZE, (page - 1) * FEED_PAGE_SIZE, request.webUser?.id),
      ratingHistory(request.em, agent.id),
      gymCounts(request.em, agent.id, agent.gymStartedAt),
      codingProfileOf(request.em, agent.id),
    ]);
    if (!feed || !codingProfile) return notFound(request, reply, 'There is no agent with this id.');
    const forOwner = request.webUser?.id === feed.ownerId;
    const sessions = feed.rows.map((row) => deliveryJson(row, forOwner));
    // The owner's page holds answers nobody else may read yet: no shared cache keeps it.
    if (forOwner) reply.header('Cache-Control', 'private');
    const tier = tierFor(agent.elo);
    return sendPage(request, reply, {
      title: agent.name,
      view: 'agent',
      data: {
        agent: {
          name: agent.name,
          ownerId: agent.owner.id,
          ownerHandle: agent.ownerHandle,
          mode: agent.mode,
          active: isAgentActive(agent),
          elo: agent.elo,
          modelClaimed: agent.modelClaimed,
          costClaimed: agent.costClaimed,
          toolsClaimed: agent.toolsClaimed,
          description: agent.description,
          createdAt: agent.createdAt,
        },
        tier,
        coding: {
          cell: codingCell(codingProfile.record),
          note: codingNote(codingProfile.record),
          suites: codingProfile.suites.filter((s) => s.attempted > 0).map(suiteRow),
          tasks: codingProfile.tasks.map((t) => ({
            task: t.task,
            attempted: t.attempted,
            passed: t.passed,
            passAt1: t.pass_at_1 === null ? '–' : pct(t.pass_at_1),
            steps: t.mean_steps ?? '–',
            wall: wallTime(t.mean_seconds),
          })),
        },
        gym: { ...gym, gym_complete: agent.gymComplete },
        chart: eloHistoryChart(history.map((h) => ({ at: new Date(h.created_ms), elo: h.after }))),
        feed,
        sessions: sessions.map((s) => ({
          ...s,
          promptHtml: renderMarkdown(s.prompt),
          responseHtml: s.response === null ? null : renderMarkdown(s.response),
          judgingNote: judgingNote(s),
        })),
        prev: page > 1 ? page - 1 : null,
        next: page * FEED_PAGE_SIZE < feed.total ? page + 1 : null,
      },
      markdown: () =>
        [
          `# ${mdEscape(agent.name)}`,
          '',
          `Owner: ${mdEscape(agent.ownerHandle)} · mode ${agent.mode} · Elo ${agent.elo} (${tier}) · gym ${agent.gymComplete ? 'complete' : `${gym.done}/${gym.total}`} · coding ${codingCell(codingProfile.record)}`,
          agent.description ? `\n${mdEscape(agent.description)}` : '',
          '',
          ...(codingProfile.tasks.length === 0
            ? []
            : [
                '## Coding tasks',
                '',
                codingNote(codingProfile.record),
                '',
                mdTable(
                  ['Suite', 'Tasks attempted', 'Attempts', 'pass@1 (95% interval)', 'pass@k'],
                  codingProfile.suites
                    .filter((s) => s.attempted > 0)
                    .map(suiteRow)
                    .map((s) => [s.suite, s.tasks, s.attempted, s.passAt1, s.passAtK]),
                ),
                mdTable(
                  ['Task', 'Attempts', 'Passed', 'pass@1', 'Steps', 'Wall time'],
                  codingProfile.tasks.map((t) => [
                    t.task,
                    t.attempted,
                    t.passed,
                    t.pass_at_1 === null ? '–' : pct(t.pass_at_1),
                    t.mean_steps ?? '–',
                    wallTime(t.mean_seconds),
                  ]),
                ),
                `JSON: ${publicUrl}/api/agents/${agent.id}/coding`,
                '',
              ]),
          `## Activity (${feed.total}, page ${page})`,
          '',
          ...sessions.map(
            (s) =>
              `### ${s.id} · ${s.kind} · ${mdEscape(s.category)} · ${s.status} · ${s.latency_ms} ms · ${markdownTime(s.created_at)}\n\n**Prompt:**\n\n${mdFenced(s.prompt)}\n\n${s.in_judging ? `_${judgingNote(s)}_\n\n` : ''}${s.response !== null ? `**Response:**\n\n${mdFenced(s.response)}\n` : ''}${s.error ? `**Error:** ${mdEscape(s.error)}\n` : ''}`,
          ),
          `JSON: ${publicUrl}/api/agents/${agent.id}/activity`,
        ].join('\n'),
    });
  });

  app.get('/users', async (request, reply) => {
    const query = z
      .object({ q: z.string().max(100).catch('').default('') })
      .parse(request.query)
      .q.trim();
    const page = pageQuery.parse(request.query).page;
    const { total, users } = await searchUsers(request.em, query, page, USERS_PAGE_SIZE);
    const entries = users.map((u) => publicUserEntryJson(u, u.agentCount));
    return sendPage(request, reply, {
      title: 'Users',
      view: 'users',
      data: {
        query,
        total,
        users: entries,
        prev: page > 1 ? page - 1 : null,
        next: page * USERS_PAGE_SIZE < total ? page + 1 : null,
      },
      markdown: () =>
        `# Users${query ? ` matching "${mdEscape(query)}"` : ''}\n\n${mdTable(
          ['User', 'Name', 'Agents', 'Joined'],
          entries.map((u) => [
            `[${mdEscape(u.username)}](${publicUrl}/users/${u.id})`,
            mdEscape(u.display_name ?? ''),
            u.agent_count,
            u.created_at.slice(0, 10),
          ]),
        )}\n${total} in all.\n`,
    });
  });

  app.get('/users/:id', async (request, reply) => {
    const params = idParam.safeParse(request.params);
    const user = params.success ? await findUser(request.em, params.data.id) : null;
    if (!user) return notFound(request, reply, 'There is no user with this id.');
    const agents = await agentsOf(request.em, user.id);
    const view = publicUserJson(user, agents);
    const withTiers = { ...view, agents: view.agents.map((a) => ({ ...a, tier: tierFor(a.elo) })) };
    return sendPage(request, reply, {
      title: user.username,
      view: 'user',
      data: { user: withTiers },
      markdown: () =>
        `# ${mdEscape(view.display_name ?? view.username)}\n\n@${mdEscape(view.username)}${view.bio ? `\n\n${mdEscape(view.bio)}` : ''}\n\n## Agents\n\n${
          withTiers.agents
            .map((a) => `- [${mdEscape(a.name)}](${publicUrl}${a.profile_url}): Elo ${a.elo} (${a.tier})`)
            .join('\n') || 'None yet.'
        }\n`,
    });
  });

  app.get('/static/site.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(SITE_CSS),
  );
  // Browsers ask every site for /favicon.ico, whatever its pages link.
  app.get('/favicon.ico', async (_request, reply) =>
    reply.type('image/x-icon').header('Cache-Control', 'public, max-age=86400').send(FAVICON_ICO),
  );
  app.get('/static/favicon.svg', async (_request, reply) =>
    reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(FAVICON_SVG),
  );
  app.get('/static/live.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(LIVE_JS),
  );
};
