import { main } from '../../cli/main';
import { register, type Registered } from '../support/test-app';
import { WebClient } from '../web/support';
import { startArena, type Arena } from './support';

let arena: Arena;
let person: Registered;
beforeAll(async () => {
  // No gap, so one dispatch step right after the live battles serves both agents.
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' });
  person = await register(arena.t.app);
}, 120_000);
afterAll(() => arena.close());

const start = (payload: object) =>
  arena.t.app.inject({ method: 'POST', url: '/api/battles', headers: person.auth, payload });
const finished = (id: number) => arena.client.workflow.getHandle(`battle-${id}`).result();
/** A battle's prompt: fixtures look it up; the judge's battle carries no prompt id. */
const promptOf = async (battleId: number) =>
  (await arena.sql<{ prompt_id: number }>(`select prompt_id from battles where id = ?`, [battleId]))[0]!.prompt_id;
const offerOf = async (promptId: number) =>
  (
    await arena.sql<{ source: string; review: string | null; offered_by_id: number | null; offered: boolean }>(
      `select source, review, offered_by_id, offered_at is not null as offered from prompts where id = ?`,
      [promptId],
    )
  )[0]!;
const cli = async (...argv: string[]) => {
  const printed: string[] = [];
  const code = await main(argv, (line) => printed.push(line), { DATABASE_URL: arena.t.config.databaseUrl });
  return { code, printed };
};
const exhaustedOnMetrics = async () => {
  const res = await arena.t.app.inject({ method: 'GET', url: '/metrics' });
  return Number(/^arena_agents_pool_exhausted (\S+)$/m.exec(res.body)?.[1]);
};

describe('offering a live battle prompt to the pool', () => {
  let offered: number;
  let fromWebsite: number;

  it('is off by default; offer_to_pool: true marks the prompt offered by its author', async () => {
    const plain = (await start({ prompt: 'Not for the pool.', deadline_seconds: 10 })).json();
    expect(await offerOf(await promptOf(plain.battle_id))).toMatchObject({
      source: 'live',
      review: null,
      offered: false,
    });
    const res = await start({ prompt: 'Name three prime numbers.', category: 'math', offer_to_pool: true });
    expect(res.statusCode).toBe(202);
    offered = await promptOf(res.json().battle_id);
    expect(await offerOf(offered)).toEqual({
      source: 'live',
      review: 'offered',
      offered_by_id: person.userId,
      offered: true,
    });
    await Promise.all([finished(plain.battle_id), finished(res.json().battle_id)]);

    const bad = await start({ prompt: 'x', offer_to_pool: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/offer_to_pool/);
  });

  it('is a checkbox on the website form', async () => {
    const web = new WebClient(arena.t.app);
    await web.signUp(`offerer${Date.now() % 100000}`);
    const form = await web.request({ method: 'GET', url: '/battle', headers: { accept: 'text/html' } });
    expect(form.body).toContain('name="offer_to_pool"');
    const res = await web.submit('/battle', { prompt: 'Describe the sea in five words.', offer_to_pool: 'on' });
    expect(res.statusCode).toBe(303);
    const battleId = Number(String(res.headers.location).split('/').at(-1));
    const [row] = await arena.sql<{ prompt_id: number }>(`select prompt_id from battles where id = ?`, [battleId]);
    fromWebsite = row!.prompt_id;
    expect(await offerOf(fromWebsite)).toMatchObject({ review: 'offered', offered: true });
    await finished(battleId);
  });

  it('operators list, accept and reject offers; only the accepted prompt is dispatched', async () => {
    const list = await cli('prompts', 'offered');
    expect(list.code).toBe(0);
    expect(list.printed.at(-1)).toBe('2 offered prompt(s) to review');
    expect(list.printed[1]).toMatch(
      new RegExp(
        `^${offered}\\tmath\\t${person.username}\\t\\d{4}-\\d\\d-\\d\\dT[^\\t]+Z\\tName three prime numbers\\.$`,
      ),
    );

    // Only offered prompts are in the pool from here on, so dispatch can send nothing else.
    await arena.sql(`update prompts set retired_at = now() where source = 'pool'`);
    expect(await exhaustedOnMetrics()).toBe(0);
    const accepted = await cli('prompts', 'accept', String(offered));
    expect(accepted).toEqual({
      code: 0,
      printed: [expect.stringMatching(new RegExp(`^accepted ${offered}: pool prompt \\d+ pool/offered/${offered}$`))],
    });
    expect(await cli('prompts', 'reject', String(fromWebsite))).toEqual({
      code: 0,
      printed: [`rejected ${fromWebsite}`],
    });
    expect((await cli('prompts', 'offered')).printed.at(-1)).toBe('0 offered prompt(s) to review');
    expect((await cli('prompts', 'accept', String(fromWebsite))).code).toBe(1);

    const sent = await arena.dispatch();
    expect(sent).toHaveLength(2);
    const prompts = await arena.sql<{ slug: string; text: string; category: string }>(
      `select distinct p.slug, p.text, p.category from sessions s join prompts p on p.id = s.prompt_id where s.id in (?, ?)`,
      sent,
    );
    expect(prompts).toEqual([{ slug: `pool/offered/${offered}`, text: 'Name three prime numbers.', category: 'math' }]);
    const rejectedSent = await arena.sql(
      `select id from sessions where prompt_id = ? and kind = 'main' and id in (?, ?)`,
      [fromWebsite, ...sent],
    );
    expect(rejectedSent).toEqual([]);
    expect((await offerOf(fromWebsite)).source).toBe('live');

    // Both agents have had every active pool prompt: the list and /metrics say so.
    const listed = await cli('prompts', 'list');
    expect(listed.printed.at(-1)).toMatch(/^2 active agent\(s\) have been sent every active pool prompt/);
    expect(await exhaustedOnMetrics()).toBe(2);
  });
});
