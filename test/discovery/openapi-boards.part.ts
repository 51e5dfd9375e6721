/**
 * The OpenAPI document says what the leaderboards' `category` takes, as the arena's boards are when
 * it is served, and every value it allows is answered 200; a client generated from it sends nothing
 * the API refuses. PATCH /api/account's email is declared an email.
 */
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Parameter {
  name: string;
  in: string;
  schema: { type?: string; enum?: string[]; format?: string };
}

const documentNow = async () => (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
const categoryParameter = (doc: { paths: Record<string, { get: { parameters: Parameter[] } }> }, route: string) =>
  doc.paths[route]!.get.parameters.find((p) => p.in === 'query' && p.name === 'category')!;

describe("the leaderboards' category in the OpenAPI document", () => {
  it('is the enum of the boards there are, each answered 200 by both routes', async () => {
    const [row] = await t.orm.em
      .getConnection()
      .execute<Array<{ categories: string[] }>>(
        `select array_agg(distinct category order by category) as categories from prompts where source = 'pool' and retired_at is null`,
      );
    const boards = [...row!.categories].sort();
    const doc = await documentNow();
    for (const route of ['/api/leaderboard', '/api/leaderboard/style']) {
      const parameter = categoryParameter(doc, route);
      expect(parameter.schema.enum).toEqual(boards);
      for (const category of parameter.schema.enum!) {
        const res = await t.app.inject({ method: 'GET', url: `${route}?category=${encodeURIComponent(category)}` });
        expect(`${route} ${category} ${res.statusCode}`).toBe(`${route} ${category} 200`);
      }
    }
  });

  it('follows the boards: a new pool category is listed the next time the document is served', async () => {
    const sql = t.orm.em.getConnection();
    await sql.execute(
      `insert into prompts (source, category, text, created_at) values ('pool', 'brand-new-board', 'a new prompt', now())`,
    );
    try {
      const parameter = categoryParameter(await documentNow(), '/api/leaderboard');
      expect(parameter.schema.enum).toContain('brand-new-board');
      expect((await t.app.inject({ method: 'GET', url: '/api/leaderboard?category=brand-new-board' })).statusCode).toBe(
        200,
      );
    } finally {
      await sql.execute(`delete from prompts where category = 'brand-new-board'`);
    }
    expect(categoryParameter(await documentNow(), '/api/leaderboard').schema.enum).not.toContain('brand-new-board');
  });

  it('still refuses what it does not list, with a sentence naming the boards', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/leaderboard/style?category=000' });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^category must be one of .*writing.*; "000" is not$/);
  });
});

it("declares PATCH /api/account's email and the password's length as the API checks them", async () => {
  const doc = await documentNow();
  const body = doc.paths['/api/account'].patch.requestBody.content['application/json'].schema;
  expect(body.properties.email).toMatchObject({
    type: 'string',
    pattern: expect.stringContaining('@'),
    maxLength: 320,
  });
  expect(body.properties.email.format).toBeUndefined();
  const password = doc.paths['/api/account/password'].put.requestBody.content['application/json'].schema;
  expect(password.properties.password).toMatchObject({ type: 'string', minLength: 10, maxLength: 200 });
});
