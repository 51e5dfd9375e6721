import fs from 'node:fs';
import path from 'node:path';
import { useCliDatabase } from './cli-support';

const cli = useCliDatabase('arena-cli-');
const { printed, errors, arena } = cli;
const file = (name: string, content: string) => {
  const p = path.join(cli.dir, name);
  fs.writeFileSync(p, content);
  return p;
};
const poolCount = async () =>
  (await cli.pg.query(`select count(*)::int as n from prompts where source = 'pool'`)).rows[0].n as number;

describe('arena prompts', () => {
  it('adds prompts from a JSON file once; adding the same file again adds nothing', async () => {
    const before = await poolCount();
    const json = file(
      'new.json',
      JSON.stringify([
        { text: 'Sort a list in O(n log n).', category: 'coding', slug: 'ops/sort' },
        { prompt: 'Write a haiku about rain.', category: 'writing' },
      ]),
    );
    expect(await arena('prompts', 'add', json)).toBe(0);
    expect(printed.at(-1)).toBe('added 2 prompt(s) to the pool; 0 already there (same slug)');
    expect(await poolCount()).toBe(before + 2);
    expect(await arena('prompts', 'add', json)).toBe(0);
    expect(printed.at(-1)).toBe('added 0 prompt(s) to the pool; 2 already there (same slug)');
  });

  it('adds a text file with a default category', async () => {
    const txt = file(
      'more.txt',
      'What is 2 + 2?\n---\ncategory: reasoning\nWhich weighs more, a kilo of feathers or a kilo of iron?\n',
    );
    expect(await arena('prompts', 'add', txt, '--category', 'math')).toBe(0);
    const { rows } = await cli.pg.query(
      `select category from prompts where text in ('What is 2 + 2?', 'Which weighs more, a kilo of feathers or a kilo of iron?') order by id`,
    );
    expect(rows.map((r) => r.category)).toEqual(['math', 'reasoning']);
  });

  it('refuses a file with errors, naming them, and adds nothing', async () => {
    const before = await poolCount();
    const bad = file(
      'bad.json',
      JSON.stringify([
        { text: 'ok', category: 'coding' },
        { text: '', category: 'Bad Category' },
      ]),
    );
    expect(await arena('prompts', 'add', bad)).toBe(1);
    expect(errors.join('\n')).toMatch(/bad\.json has errors; nothing was added:\n {2}entry 2: /);
    expect(await poolCount()).toBe(before);
    expect(await arena('prompts', 'add', path.join(cli.dir, 'missing.json'))).toBe(1);
    expect(errors.at(-1)).toMatch(/cannot read .*missing\.json/);
  });

  it('retires prompts by slug or id and lists active and retired ones', async () => {
    const { rows } = await cli.pg.query(`select id from prompts where slug = 'ops/sort'`);
    const other = (
      await cli.pg.query(
        `select id, slug from prompts where source = 'pool' and slug <> 'ops/sort' order by id limit 1`,
      )
    ).rows[0];
    expect(await arena('prompts', 'retire', 'ops/sort', String(other.id))).toBe(0);
    expect(printed).toEqual([`retired ${other.id} ${other.slug}`, `retired ${rows[0].id} ops/sort`]);
    const retired = (await cli.pg.query(`select count(*)::int as n from prompts where retired_at is not null`)).rows[0]
      .n;
    expect(retired).toBe(2);

    printed.length = 0;
    expect(await arena('prompts', 'list', '--retired')).toBe(0);
    expect(printed.at(-1)).toBe('2 retired pool prompt(s)');
    printed.length = 0;
    expect(await arena('prompts', 'list', '--category', 'coding')).toBe(0);
    // The last two lines: the count, and how many agents have been sent every active pool prompt.
    expect(printed.slice(1, -2).every((line) => line.split('\t')[1] === 'coding')).toBe(true);
    expect(printed.at(-1)).toBe(
      '0 active agent(s) have been sent every active pool prompt (dispatch has nothing left for them)',
    );

    expect(await arena('prompts', 'retire', 'no/such/slug')).toBe(1);
    expect(errors.at(-1)).toBe('arena: no pool prompt with id or slug: no/such/slug');
  });
});

describe('arena prompts offered, accept and reject', () => {
  const offer = async (text: string) => {
    const { rows } = await cli.pg.query(
      `insert into users (username, created_at) values ($1, now()) returning id, username`,
      [`offerer${Math.floor(Math.random() * 1e9)}`],
    );
    const prompt = await cli.pg.query(
      `insert into prompts (source, category, text, offered_at, offered_by_id, review, created_at)
       values ('live', 'writing', $1, now(), $2, 'offered', now()) returning id`,
      [text, rows[0].id],
    );
    return { id: prompt.rows[0].id as number, username: rows[0].username as string };
  };

  it('lists offers with an excerpt, accepts one into the pool and rejects another', async () => {
    const long = await offer(`Write a story\nabout ${'a very long sea '.repeat(10)}`);
    const short = await offer('Say hello.');
    expect(await arena('prompts', 'offered')).toBe(0);
    expect(printed[0]).toBe('id\tcategory\toffered_by\toffered_at\ttext');
    const [, first] = printed;
    expect(first!.split('\t')).toEqual([
      String(long.id),
      'writing',
      long.username,
      expect.stringMatching(/Z$/),
      expect.stringMatching(/^Write a story about a very long sea .*…$/),
    ]);
    expect(first!.split('\t')[4]).toHaveLength(60);
    expect(printed.at(-1)).toBe('2 offered prompt(s) to review');

    printed.length = 0;
    expect(await arena('prompts', 'accept', String(long.id))).toBe(0);
    const pool = await cli.pg.query(`select id, source, category, text from prompts where slug = $1`, [
      `pool/offered/${long.id}`,
    ]);
    expect(pool.rows).toHaveLength(1);
    expect(pool.rows[0]).toMatchObject({ source: 'pool', category: 'writing' });
    expect(printed).toEqual([`accepted ${long.id}: pool prompt ${pool.rows[0].id} pool/offered/${long.id}`]);
    expect(await arena('prompts', 'reject', String(short.id))).toBe(0);
    const reviews = await cli.pg.query(`select id, review, source from prompts where id in ($1, $2) order by id`, [
      long.id,
      short.id,
    ]);
    expect(reviews.rows).toEqual([
      { id: long.id, review: 'accepted', source: 'live' },
      { id: short.id, review: 'rejected', source: 'live' },
    ]);
    expect(await cli.pg.query(`select 1 from prompts where slug = $1`, [`pool/offered/${short.id}`])).toMatchObject({
      rowCount: 0,
    });

    printed.length = 0;
    expect(await arena('prompts', 'offered')).toBe(0);
    expect(printed).toEqual(['id\tcategory\toffered_by\toffered_at\ttext', '0 offered prompt(s) to review']);
  });

  it('says plainly why a prompt cannot be reviewed', async () => {
    const once = await offer('Review me once.');
    expect(await arena('prompts', 'reject', String(once.id))).toBe(0);
    expect(await arena('prompts', 'accept', String(once.id))).toBe(1);
    expect(errors.at(-1)).toBe(`arena: prompt ${once.id} was already rejected`);
    const { rows } = await cli.pg.query(`select id from prompts where source = 'pool' order by id limit 1`);
    expect(await arena('prompts', 'reject', String(rows[0].id))).toBe(1);
    expect(errors.at(-1)).toBe(`arena: prompt ${rows[0].id} was not offered to the pool`);
    expect(await arena('prompts', 'accept', '99999999')).toBe(1);
    expect(errors.at(-1)).toBe('arena: no prompt with id 99999999');
    expect(await arena('prompts', 'accept', 'abc')).toBe(1);
    expect(errors.at(-1)).toBe('arena: a prompt id is a number, not "abc"');
  });
});
