/**
 * Reads the curl commands of a guide and replays them with fetch, so a test follows the guide
 * literally: the same method, address, headers and body, with shell variables filled in.
 */

export interface CurlCommand {
  /** The command as the guide writes it. */
  source: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The fenced blocks of one language (`sh`, `ts`, `python`), in order. */
export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

export function shellBlocks(markdown: string): string[] {
  return codeBlocks(markdown, 'sh');
}

/** Names the guide tells the reader to `export`, in order. */
export function exportedVariables(markdown: string): string[] {
  return shellBlocks(markdown).flatMap((block) =>
    [...block.matchAll(/^export ([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!),
  );
}

function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_all, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`the command uses $${name}, which the test has no value for`);
    return value;
  });
}

/** Splits a command line into words the way a POSIX shell does for the quoting our guides use. */
function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      let raw = '';
      while (j < line.length && line[j] !== '"') {
        if (line[j] === '\\' && '"\\$`'.includes(line[j + 1] ?? '')) j++;
        raw += line[j];
        j++;
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      word += expand(raw, vars);
      i = j;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      let j = i;
      let raw = '';
      while (j < line.length && !/[\s'"]/.test(line[j]!)) raw += line[j++];
      word += expand(raw, vars);
      i = j - 1;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

export function parseCurl(source: string, vars: Record<string, string>): CurlCommand {
  const withoutComments = source
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'))
    .join('\n');
  const line = withoutComments.replace(/\\\n/g, ' ').trim();
  const words = shellWords(line, vars);
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${source}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-s' || word === '-i' || word === '-sS') continue;
    if (word === '-X') method = words[++i];
    else if (word === '-H') {
      const header = words[++i]!;
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data') body = words[++i];
    else if (word.startsWith('-')) throw new Error(`the test does not know curl's ${word}`);
    else url = word;
  }
  if (!url) throw new Error(`no URL in: ${source}`);
  // curl's own defaults: -d means POST and a form body unless the command says otherwise.
  if (body !== undefined && headers['content-type'] === undefined)
    headers['content-type'] = 'application/x-www-form-urlencoded';
  return { source, method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

/** The guide's curl commands, each one before its variables are filled in. */
export function curlSources(markdown: string): string[] {
  return shellBlocks(markdown)
    .flatMap((block) => block.split(/\n(?=curl )/))
    .map((s) => s.trim())
    .filter((s) => s.startsWith('curl '));
}

export async function runCurl(command: CurlCommand): Promise<{ status: number; body: string; json<T = any>(): T }> {
  const res = await fetch(command.url, { method: command.method, headers: command.headers, body: command.body });
  const body = await res.text();
  return { status: res.status, body, json: () => JSON.parse(body) };
}
