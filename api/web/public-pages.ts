/** Public pages: agent profiles with their feed, users, and the site's static files (the leaderboard's are in leaderboard-pages.ts). */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { pathId } from '../schemas/common';
import { codingCell, codingNote, pct, suiteRow, wallTime } from './render/coding-cells';
import { ratedAgentIds, ratingHistory } from '../../infra/db/repositories/rating.repository';
import { agentFeed, gymCounts } from '../../infra/db/repositories/delivery-read.repository';
import { isAgentActive } from '../../domain/agent-state';
import { shownTier } from '../../domain/ratings/tiers';
import { agentsOf } from '../../services/agents';
import { codingProfileOf, findAgent, findUser, searchUsers } from '../../services/profiles';
import { publicUserEntryJson, publicUserJson } from '../json/accounts';
import { deliveryJson } from '../json/agents';
import { eloHistoryChart } from './render/charts';
import { renderMarkdown } from './render/markdown';
import { presenceOf, waitingFor } from './render/agent-presence';
import { mdEscape, mdFenced, mdTable } from './render/markdown-pages';
import { markdownTime } from './render/times';
import { FAVICON_ICO, FAVICON_SVG, LIVE_JS, sendPage, SITE_CSS } from './site';

const FEED_PAGE_SIZE = 20;
const USERS_PAGE_SIZE = 50;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1) });
// Canonical ids only, as on the API: /agents/0x1 is no page.
const idParam = z.object({ id: pathId });
/** What the owner's own page says of an arena answer in judging (no one else is shown it at all). */
const judgingNote = (s: { in_judging: boolean }) =>
  s.in_judging ? 'In judging: only you see this answer until judging ends.' : null;

export const publicPages: FastifyPluginAsync<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const notFound = (request: Parameters<typeof sendPage>[0], reply: Parameters<typeof sendPage>[1], message: string) =>
    sendPage(request, reply, {
      title: 'Not found',
      view: 'not-found',
      data: { message },
      markdown: () => `# Not found\n\n${mdEscape(message)}\n`,
      status: 404,
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
    const tier = shownTier(agent.elo, history.length > 0);
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
        // Whether it can answer now is its owner's to read, as in the API.
        presence: forOwner ? presenceOf(agent) : null,
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
          // A pending delivery has no latency yet: its owner reads what it waits for, anyone else that it waits.
          waiting: s.status !== 'pending' ? null : forOwner ? waitingFor(agent) : 'waiting for the answer',
        })),
        prev: page > 1 ? page - 1 : null,
        next: page * FEED_PAGE_SIZE < feed.total ? page + 1 : null,
      },
      markdown: () =>
        [
          `# ${mdEscape(agent.name)}`,
          '',
          `Owner: ${mdEscape(agent.ownerHandle)} · mode ${agent.mode} · Elo ${agent.elo} (${tier ?? 'no votes yet'}) · gym ${agent.gymComplete ? 'complete' : `${gym.done}/${gym.total}`} · coding ${codingCell(codingProfile.record)}`,
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
    const rated = await ratedAgentIds(
      request.em,
      agents.map((a) => a.id),
    );
    const withTiers = { ...view, agents: view.agents.map((a) => ({ ...a, tier: shownTier(a.elo, rated.has(a.id)) })) };
    return sendPage(request, reply, {
      title: user.username,
      view: 'user',
      data: { user: withTiers },
      markdown: () =>
        `# ${mdEscape(view.display_name ?? view.username)}\n\n@${mdEscape(view.username)}${view.bio ? `\n\n${mdEscape(view.bio)}` : ''}\n\n## Agents\n\n${
          withTiers.agents
            .map(
              (a) =>
                `- [${mdEscape(a.name)}](${publicUrl}${a.profile_url}): Elo ${a.elo} (${a.tier ?? 'no votes yet'})`,
            )
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
