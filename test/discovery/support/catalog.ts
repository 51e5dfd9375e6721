/** What the discovery tests share: the public address the test apps run at, the catalog's Link, and a path from an absolute link. */

export const BASE = 'http://arena.test';
export const CATALOG_LINK = `<${BASE}/.well-known/api-catalog>; rel="api-catalog"`;

/** The path and query of a link, which must be absolute at this arena's address. */
export function pathOf(href: string): string {
  const url = new URL(href);
  expect(url.origin).toBe(BASE);
  return `${url.pathname}${url.search}`;
}
