/** The boards by claim: the leaderboard fitted with the models and tools agents' owners claim as the players. */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { boardCategories, readClaimBoard } from '../../services/leaderboards';
import { intervalChart } from './render/charts';
import { mdEscape, mdTable } from './render/markdown-pages';
import { sendPage } from './site';

const claimQuery = z.object({
  by: z.enum(['model', 'tool']).catch('model').default('model'),
  category: z.string().max(100).optional().catch(undefined),
  style_control: z.enum(['true', 'false']).catch('false').default('false'),
});

/** The tabs of who the players are, for the leaderboard and this page alike. */
export function playerTabs(current: 'agent' | 'model' | 'tool', category: string | undefined, styleControl: boolean) {
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

export const claimPages: FastifyPluginAsync<{ publicUrl: string; minVotes: number }> = async (
  app,
  { publicUrl, minVotes },
) => {
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
    const chart = intervalChart(
      board.rows.map((r) => ({
        label: r.claim,
        rating: r.bt_rating,
        low: r.ci_low,
        high: r.ci_high,
        provisional: r.rank === null,
      })),
    );
    const note = `Each agent's owner says what model its agent runs on and which tools it uses; the arena does not check it. A claim's votes are its agents' votes against agents of other claims, fitted as the agents' board is; a claim with fewer than ${minVotes} votes is provisional.`;
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
