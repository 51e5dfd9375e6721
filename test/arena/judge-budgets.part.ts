/**
 * Budgets per address: a client address has a daily vote budget across its accounts; a pair's
 * slots go at most one per address and per registration cluster; no address or cluster takes most
 * of one agent's battles; a judge never judges agents of an owner registered with it. An operator's
 * trusted judges are exempt from the per-address rules.
 */
import { register, registerJudge, type Registered } from '../support/test-app';
import { startArena, type Arena } from './support';

let arena: Arena;
beforeAll(async () => {
  arena = await startArena(4, { ARENA_MIN_GAP_SECONDS: '0', ARENA_ADDRESS_DAILY_VOTES: '3' });
  for (let i = 0; i < 6; i++) await arena.dispatch();
}, 180_000);
afterAll(() => arena.close());

const next = (who: Registered, from = who.ip) =>
  arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: who.auth, remoteAddress: from });
const vote = (who: Registered, battleId: number, winner = 'a', from = who.ip) =>
  arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${battleId}/vote`,
    headers: who.auth,
    remoteAddress: from,
    payload: { winner },
  });
const pairOf = async (battleId: number) =>
  (
    await arena.sql<{ pair: string; agents: number[] }>(
      `select pair_low || '-' || pair_high as pair, array[agent_a_id, agent_b_id] as agents from battles where id = ?`,
      [battleId],
    )
  )[0]!;
/**
 * A judge established by the rule, not trusted: the per-address rules hold it, and it may take any
 * pair (a judge in probation is handed only pairs a trusted judge had).
 */
async function registerEstablished(ip: string): Promise<Registered> {
  const judge = await register(arena.t.app, ip);
  await arena.sql(`insert into judge_standings (judge_id, established_at) values (?, now())`, [judge.userId]);
  return judge;
}

/** Every battle judge/next hands this judge until it says 204, each left unvoted (each judge holds one at a time, so each is voted as a tie in the table). */
async function everyBattleFor(who: Registered, from = who.ip): Promise<number[]> {
  const battles: number[] = [];
  for (;;) {
    const res = await next(who, from);
    if (res.statusCode === 204) return battles;
    expect(res.statusCode).toBe(200);
    battles.push(res.json().battle_id);
    await arena.sql(
      `update battles set status = 'voted', winner = 'tie', voted_at = now() - interval '2 days' where id = ?`,
      [res.json().battle_id],
    );
  }
}

describe('per-address rules', () => {
  it("refuses a vote past the address's daily budget across all its accounts, and not from elsewhere or by a trusted judge", async () => {
    const shared = '198.51.100.20';
    const accounts = [
      await register(arena.t.app, shared),
      await register(arena.t.app, shared),
      await register(arena.t.app, shared),
    ];
    for (const account of accounts) {
      const battle = await next(account);
      expect(battle.statusCode).toBe(200);
      expect((await vote(account, battle.json().battle_id)).statusCode).toBe(200);
    }
    const fourth = await register(arena.t.app, '198.51.100.21');
    const battle = (await next(fourth)).json();
    const refused = await vote(fourth, battle.battle_id, 'a', shared);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toBe(
      'daily vote limit of your address reached (3 a day across all its accounts); try again tomorrow (UTC)',
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing was recorded: the battle is still open, and votes from the account's own address go through.
    expect((await pairOf(battle.battle_id)).pair).toBeDefined();
    const [open] = await arena.sql<{ status: string }>(`select status from battles where id = ?`, [battle.battle_id]);
    expect(open!.status).toBe('open');
    expect((await vote(fourth, battle.battle_id)).statusCode).toBe(200);

    const trusted = await registerJudge(arena.t, shared);
    const trustedBattle = (await next(trusted)).json();
    expect((await vote(trusted, trustedBattle.battle_id)).statusCode).toBe(200);
  });

  it('hands a pair to at most one account of an address and of a registration cluster, and refuses a second vote from either', async () => {
    // Two accounts registered together (one cluster), a third on its own that judges from the first's address.
    const first = await registerEstablished('198.51.100.30');
    const sibling = await registerEstablished('198.51.100.30');
    const guest = await registerEstablished('198.51.100.31');
    const taken = (await next(first)).json();
    const { pair } = await pairOf(taken.battle_id);
    const siblingPairs = await Promise.all((await everyBattleFor(sibling, '198.51.100.32')).map(pairOf));
    const guestPairs = await Promise.all((await everyBattleFor(guest, '198.51.100.30')).map(pairOf));
    expect(siblingPairs.length + guestPairs.length).toBeGreaterThan(0);
    expect([...siblingPairs, ...guestPairs].map((p) => p.pair)).not.toContain(pair);

    // A vote is refused on a pair an account of the same address has voted on, though judge/next handed it elsewhere.
    const [low, high] = pair.split('-').map(Number) as [number, number];
    expect((await vote(first, taken.battle_id)).statusCode).toBe(200);
    const outsider = await registerEstablished('198.51.100.33');
    const [forged] = await arena.sql<{ id: number }>(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, created_at)
       select prompt_id, ?, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, 'open', now()
       from battles where id = ? returning id`,
      [outsider.userId, taken.battle_id],
    );
    expect([low, high].every(Number.isInteger)).toBe(true);
    const refused = await vote(outsider, forged!.id, 'b', '198.51.100.30');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe(
      'an account of your address or registered with yours has already judged this pair: a pair takes one vote from each',
    );
    expect((await vote(outsider, forged!.id, 'b')).statusCode).toBe(200);
  });

  it('never hands a judge a pair with an agent of an owner registered together with it', async () => {
    // Fresh answers: the tests before took every slot they could.
    for (let i = 0; i < 2; i++) await arena.dispatch();
    const owner = arena.owners[0]!;
    const mine = arena.agents[0]!.id;
    // Registered from the owner's address the same day: the owner's cluster.
    const sock = await registerEstablished(owner.ip);
    const [cluster] = await arena.sql<{ same: boolean }>(
      `select a.registration_cluster = b.registration_cluster as same from users a, users b where a.id = ? and b.id = ?`,
      [sock.userId, owner.userId],
    );
    expect(cluster!.same).toBe(true);
    const battles = await Promise.all((await everyBattleFor(sock, '198.51.100.40')).map(pairOf));
    expect(battles.length).toBeGreaterThan(0);
    for (const battle of battles) expect(battle.agents).not.toContain(mine);
  });

  it("keeps an address from taking more than half of an agent's battles once it has taken ten", async () => {
    for (let i = 0; i < 2; i++) await arena.dispatch();
    const crowded = arena.agents[1]!.id;
    const judge = await registerEstablished('198.51.100.50');
    // The address has had 12 of the agent's 20 battles so far.
    await arena.sql(
      `insert into judge_exposures (agent_id, source, battles) values (?, 'address:198.51.100.50', 12)
       on conflict (agent_id, source) do update set battles = 12`,
      [crowded],
    );
    await arena.sql(
      `insert into judge_exposures (agent_id, source, battles) values (?, '', 20)
       on conflict (agent_id, source) do update set battles = 20`,
      [crowded],
    );
    const before = await arena.sql<{ source: string; battles: number }>(
      `select source, battles from judge_exposures where agent_id = ? order by source`,
      [crowded],
    );
    const battles = await Promise.all((await everyBattleFor(judge)).map(pairOf));
    expect(battles.length).toBeGreaterThan(0);
    for (const battle of battles) expect(battle.agents).not.toContain(crowded);
    // Another address is handed the agent's pairs.
    const elsewhere = await Promise.all((await everyBattleFor(await registerEstablished('198.51.100.51'))).map(pairOf));
    expect(elsewhere.some((battle) => battle.agents.includes(crowded))).toBe(true);
    // Every battle it did take was counted, in all and for its address and cluster.
    const counted = await arena.sql<{ source: string; battles: number }>(
      `select source, battles from judge_exposures where source in ('address:198.51.100.50', ?) and agent_id <> ?`,
      [`cluster:${judge.userId}`, crowded],
    );
    const sum = (source: string) => counted.filter((c) => c.source === source).reduce((n, c) => n + c.battles, 0);
    expect(sum('address:198.51.100.50')).toBe(2 * battles.length);
    expect(sum(`cluster:${judge.userId}`)).toBe(2 * battles.length);
    const after = await arena.sql<{ source: string; battles: number }>(
      `select source, battles from judge_exposures where agent_id = ? and source in ('', 'address:198.51.100.50') order by source`,
      [crowded],
    );
    expect(after).toEqual(
      before
        .filter((row) => row.source === '' || row.source === 'address:198.51.100.50')
        .map((row) =>
          row.source === ''
            ? { ...row, battles: row.battles + elsewhere.filter((b) => b.agents.includes(crowded)).length }
            : row,
        ),
    );
  });
});
