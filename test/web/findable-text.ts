/**
 * A piece of a prompt that a page shows as it is, in HTML and in Markdown: its longest run of letters,
 * digits, spaces, commas and full stops, cut to 40 characters. Markdown syntax (`top_words`, `**`) and
 * HTML escaping (`&str` is `&amp;str`) change other characters, so a run without them is what a
 * search of the page can find, or be sure is not there.
 */
export function findableText(prompt: string): string {
  const runs = (prompt.match(/[A-Za-z0-9 ,.]+/g) ?? []).map((run) => run.trim().slice(0, 40));
  return runs.reduce((longest, run) => (run.length > longest.length ? run : longest), '');
}
