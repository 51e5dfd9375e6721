/**
 * `arena judges`: every judge's standing and the last refresh's flags; `trust`, the seed of a new
 * arena; `void`, which takes a judge's or a cluster's votes back, Elo and all.
 */
import path from 'node:path';
import { main } from '../../cli/main';
import { useCliDatabase } from './cli-support';

const cli = useCliDatabase('arena-cli-judges-');
const { printed, errors, arena } = cli;
const sql = async <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  (
    await cli.pg.query(
      query.replace(/\?/g, (_, i: number) => `$${query.slice(0, i).split('?').length}`),
      params,
    )
  ).rows as T[];

let judges: Record<string, number>;
let agents: [number, number];
let battles: number[];

beforeAll(async () => {
  // Two owners' agents with one answer each to a pool prompt; a lone judge, two accounts registered
  // together (one cluster), and an operator-trusted one.
  const users = await sql<{ id: number; username: string }>(
    `insert into users (username, registration_network, created_at) values
       ('owner-a', '192.0.2.1', now()), ('owner-b', '192.0.2.2', now()), ('loner', '192.0.2.3', now() - interval '30 days'),
       ('sock-1', '192.0.2.4', now()), ('sock-2', '192.0.2.4', now()), ('seed', '192.0.2.5', now())
     returning id, username`,
  );
  judges = Object.fromEntries(users.map((u) => [u.username, u.id]));
  await sql(`update users set registration_cluster = id`);
  await sql(`update users set registration_cluster = ? where username = 'sock-2'`, [judges['sock-1']]);
  const made = await sql<{ id: number }>(
    `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, created_at) values
       (?, 'alpha', 'pull', 'a', 'x', 'x', now()), (?, 'beta', 'pull', 'b', 'y', 'y', now()) returning id`,
    [judges['owner-a'], judges['owner-b']],
  );
  agents = [made[0]!.id, made[1]!.id];
  const [prompt] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values ('pool', 'c', 'judges cli', now()) returning id`,
  );
  const sessions = await sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, created_at)
     values (?, 'main', ?, 'pull', 'c', 60, 'answered', 'one', now()), (?, 'main', ?, 'pull', 'c', 60, 'answered', 'two', now())
     returning id`,
    [agents[0], prompt!.id, agents[1], prompt!.id],
  );
  const [low, high] = [sessions[0]!.id, sessions[1]!.id];
  // Each sock votes alpha up by 16; the loner votes beta up by 16. Ratings as the votes left them.
  battles = [];
  let elo = { a: 1500, b: 1500 };
  for (const [judge, winner] of [
    ['sock-1', 'a'],
    ['sock-2', 'a'],
    ['loner', 'b'],
  ] as const) {
    const [battle] = await sql<{ id: number }>(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, voted_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', ?, now(), now()) returning id`,
      [prompt!.id, judges[judge], low, high, agents[0], agents[1], low, high, winner],
    );
    battles.push(battle!.id);
    const delta = winner === 'a' ? 16 : -16;
    const next = { a: elo.a + delta, b: elo.b - delta };
    await sql(
      `insert into rating_changes (agent_id, battle_id, before, after, created_at) values (?, ?, ?, ?, now()), (?, ?, ?, ?, now())`,
      [agents[0], battle!.id, elo.a, next.a, agents[1], battle!.id, elo.b, next.b],
    );
    elo = next;
  }
  await sql(`update agents set elo = ? where id = ?`, [elo.a, agents[0]]);
  await sql(`update agents set elo = ? where id = ?`, [elo.b, agents[1]]);
  await sql(
    `insert into vote_flags (kind, cluster, agent_id, direction, votes, p_value, reason, flagged_at)
     values ('cluster', ?, ?, 'for', 2, 0.00001, 'two accounts registered together voted for agent alpha', now())`,
    [judges['sock-1'], agents[0]],
  );
});

const eloOf = async (agentId: number) =>
  (await sql<{ elo: number }>(`select elo from agents where id = ?`, [agentId]))[0]!.elo;

describe('arena judges', () => {
  it('lists every judge with its standing, cluster and votes, then the flags with their reasons', async () => {
    expect(await arena('judges')).toBe(0);
    expect(printed[0]).toBe(
      'user_id\tusername\tstanding\tcluster\taddress\tregistered\tvotes\tcounted\tuncounted\tagreement',
    );
    const line = (name: string) => printed.find((l) => l.split('\t')[1] === name)!.split('\t');
    expect(line('sock-2').slice(2, 5)).toEqual(['probation', `cluster:${judges['sock-1']} (2 accounts)`, '192.0.2.4']);
    expect(line('loner').slice(2, 4)).toEqual(['probation', `cluster:${judges.loner}`]);
    expect(line('loner')[6]).toBe('1');
    expect(printed).toContain('3 judge(s); 1 flag(s) from the last leaderboard refresh:');
    expect(printed.slice(-3)).toEqual([
      `cluster\tcluster:${judges['sock-1']} on agent ${agents[0]} alpha\t2 votes\tp = 1.00e-5\ttwo accounts registered together voted for agent alpha`,
      '0 hold(s) waiting for a decision (arena judges release <id> | void-hold <id> --reason …):',
      'No judge is trusted, so no vote counts: vouch for judges with `arena judges trust <username>`.',
    ]);
  });

  it('trusts judges by username or cluster, and refuses names that stand for nobody, changing nothing', async () => {
    expect(await arena('judges', 'trust', 'seed', 'nobody-here', 'cluster:99999999')).toBe(1);
    expect(errors.at(-1)).toBe('arena: no account named nobody-here, cluster:99999999 (a username, or cluster:<id>)');
    expect((await sql(`select 1 from judge_standings`)).length).toBe(0);

    expect(await arena('judges', 'trust', 'SEED')).toBe(0);
    expect(printed.at(-1)).toBe('trusted seed: their votes count on the boards from the next refresh');
    const [row] = await sql<{ trusted: boolean; established: boolean }>(
      `select trusted_at is not null as trusted, established_at is not null as established from judge_standings where judge_id = ?`,
      [judges.seed],
    );
    expect(row).toEqual({ trusted: true, established: true });
    printed.length = 0;
    await arena('judges');
    expect(printed.find((l) => l.split('\t')[1] === 'seed')!.split('\t')[2]).toBe('trusted');
  });

  it("voids a cluster's votes: each Elo change is taken back in the agents' histories, and voiding again changes nothing", async () => {
    expect([await eloOf(agents[0]), await eloOf(agents[1])]).toEqual([1516, 1484]);
    expect(await arena('judges', 'void', `cluster:${judges['sock-1']}`)).toBe(1);

    expect(await arena('judges', 'void', `cluster:${judges['sock-1']}`, '--reason', 'the owner of alpha')).toBe(0);
    expect(printed.at(-1)).toBe(
      'voided 2 vote(s) of sock-1, sock-2: 4 Elo change(s) taken back now; the boards and the export leave them out from the next refresh',
    );
    // The socks moved alpha up by 32 in all; the loner's vote stays.
    expect([await eloOf(agents[0]), await eloOf(agents[1])]).toEqual([1484, 1516]);
    const history = await sql<{ battle_id: number; kind: string; before: number; after: number }>(
      `select battle_id, kind, before, after from rating_changes where agent_id = ? order by id`,
      [agents[0]],
    );
    expect(history).toEqual([
      { battle_id: battles[0], kind: 'vote', before: 1500, after: 1516 },
      { battle_id: battles[1], kind: 'vote', before: 1516, after: 1532 },
      { battle_id: battles[2], kind: 'vote', before: 1532, after: 1516 },
      { battle_id: battles[0], kind: 'void', before: 1516, after: 1500 },
      { battle_id: battles[1], kind: 'void', before: 1500, after: 1484 },
    ]);
    const voided = await sql<{ id: number }>(`select id from battles where voided_at is not null order by id`);
    expect(voided.map((b) => b.id)).toEqual(battles.slice(0, 2));
    const standings = await sql<{ judge_id: number; void_reason: string }>(
      `select judge_id, void_reason from judge_standings where voided_at is not null order by judge_id`,
    );
    expect(standings).toEqual([
      { judge_id: judges['sock-1'], void_reason: 'the owner of alpha' },
      { judge_id: judges['sock-2'], void_reason: 'the owner of alpha' },
    ]);

    expect(await arena('judges', 'void', 'sock-1', '--reason', 'again')).toBe(0);
    expect(printed.at(-1)).toMatch(/^voided 0 vote\(s\) of sock-1: 0 Elo change\(s\) taken back now/);
    expect([await eloOf(agents[0]), await eloOf(agents[1])]).toEqual([1484, 1516]);
    printed.length = 0;
    await arena('judges');
    expect(printed.find((l) => l.split('\t')[1] === 'sock-1')!.split('\t')[2]).toBe('voided');
  });

  it('releases a hold by its id, giving its Elo back, and refuses a hold that is not there or was decided', async () => {
    const [hold] = await sql<{ id: number }>(
      `insert into vote_holds (agent_id, direction, votes, observed, expected, p_value, reason, held_at)
       values (?, 'against', 1, 0, 0.5, 0.001, 'the judges established by the rule voted against agent beta', now()) returning id`,
      [agents[1]],
    );
    // The loner's vote, held: its change taken back as a hold does.
    await sql(`update battles set hold_id = ? where id = ?`, [hold!.id, battles[2]]);
    const before = [await eloOf(agents[0]), await eloOf(agents[1])];
    await sql(
      `insert into rating_changes (agent_id, battle_id, before, after, kind, created_at) values (?, ?, ?, ?, 'hold', now()), (?, ?, ?, ?, 'hold', now())`,
      [agents[0], battles[2], before[0], before[0]! + 16, agents[1], battles[2], before[1], before[1]! - 16],
    );
    await sql(`update agents set elo = elo + case when id = ? then 16 else -16 end where id in (?, ?)`, [
      agents[0],
      agents[0],
      agents[1],
    ]);
    printed.length = 0;
    await arena('judges');
    expect(printed.at(-1)).toMatch(new RegExp(`^hold ${hold!.id}\theld\tagent ${agents[1]} beta\t1 votes held\t`));

    expect(await arena('judges', 'release', 'twelve')).toBe(1);
    expect(errors.at(-1)).toBe('arena: not a hold id: twelve (see arena judges)');
    expect(await arena('judges', 'release', '99999999')).toBe(1);
    expect(errors.at(-1)).toBe('arena: no undecided hold 99999999 (see arena judges)');
    expect(await arena('judges', 'release', String(hold!.id))).toBe(0);
    expect(printed.at(-1)).toBe(
      `released hold ${hold!.id}: 1 vote(s) count from the next refresh; 2 Elo change(s) given back now`,
    );
    expect([await eloOf(agents[0]), await eloOf(agents[1])]).toEqual(before);
    expect(await arena('judges', 'void-hold', String(hold!.id), '--reason', 'late')).toBe(1);
    expect(errors.at(-1)).toBe(`arena: no undecided hold ${hold!.id} (see arena judges)`);
  });

  it('explains a missing database', async () => {
    const code = await main(['judges'], () => undefined, { ARENA_DATA_DIR: path.join(cli.dir, 'nowhere') });
    expect(code).toBe(1);
    expect(errors.at(-1)).toMatch(/DATABASE_URL is not set and there is no embedded database/);
  });
});
