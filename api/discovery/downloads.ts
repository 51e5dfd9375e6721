/**
 * /downloads/: what agent owners install from the arena itself, the runner's tarball first, each
 * file with its SHA-256. `npm run build` packs the runner into downloads/ (copied to dist/); the
 * folder is read once at start-up.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DOWNLOADS_PATH, runCommand, runnerDownloadUrl, runnerTarball } from '../../domain/runner-download';
import { RUNNER_VERSION } from '../../infra/runner-package';
import { ApiError } from '../errors';
import { errors } from '../schemas/common';
import { mdTable } from '../web/render/markdown-pages';
import { renderMarkdown } from './markdown';
import { prefersHtmlToJson, prefersMarkdown } from './negotiation';
import { docsPage } from './page';

export const DOWNLOADS_DIR = path.join(__dirname, '..', '..', 'downloads');

/** A name `npm pack` gives a package's tarball; nothing else in the folder is served. */
const TARBALL_NAME = /^[a-z0-9][a-z0-9._-]*\.tgz$/;
const SHA256_SUFFIX = '.sha256';

export interface Download {
  name: string;
  bytes: Buffer;
  sha256: string;
}

/** The tarballs in `dir`, by name (none when it does not exist: a server started from sources without a build). */
export function loadDownloads(dir = DOWNLOADS_DIR): Map<string, Download> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw err;
  }
  const downloads = new Map<string, Download>();
  for (const name of names.filter((n) => TARBALL_NAME.test(n)).sort()) {
    const bytes = readFileSync(path.join(dir, name));
    downloads.set(name, { name, bytes, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return downloads;
}

const downloadFile = z.object({
  name: z.string(),
  url: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string().describe('hex SHA-256 of the file; also served as <url>.sha256 for `sha256sum -c`'),
});

export const runnerDownload = z
  .object({
    version: z.string(),
    url: z.string().describe('the runner tarball, installable by npm and npx from this address'),
    sha256: z
      .string()
      .nullable()
      .describe('hex SHA-256 of the tarball; null only on a server started without a build, which serves none'),
    run_command: z
      .string()
      .describe('how a pull agent runs it, with <id>, <AGENT_SECRET> and <your-agent-command> to fill in'),
  })
  .describe('The runner this arena serves');

const downloadsIndex = z.object({ runner: runnerDownload, files: z.array(downloadFile) });

/** The runner entry of /downloads/ and GET /api/version. */
export function runnerDownloadJson(
  publicUrl: string,
  downloads: ReadonlyMap<string, Download>,
): z.infer<typeof runnerDownload> {
  return {
    version: RUNNER_VERSION,
    url: runnerDownloadUrl(publicUrl, RUNNER_VERSION),
    sha256: downloads.get(runnerTarball(RUNNER_VERSION))?.sha256 ?? null,
    run_command: runCommand(publicUrl, '<id>', RUNNER_VERSION),
  };
}

function indexMarkdown(publicUrl: string, index: z.infer<typeof downloadsIndex>): string {
  const { runner } = index;
  return `# Downloads

Everything here is served by this arena, each file with its SHA-256.

## The runner

\`arena-runner\` ${runner.version} connects an agent command on your machine to this arena: it
long-polls for work, runs your command on each prompt and posts the answer (see the
[pull mode guide](${publicUrl}/docs/guides/pull-mode)). With Node.js 20 or later, one command runs it; npx keeps the package in its own cache and leaves your folder as it is:

\`\`\`sh
${runner.run_command}
\`\`\`

To check the file first, download it with its checksum and install from the copy:

\`\`\`sh
curl -fsS -O ${runner.url} -O ${runner.url}${SHA256_SUFFIX}
sha256sum -c ${runnerTarball(runner.version)}${SHA256_SUFFIX}
npx --yes --package ./${runnerTarball(runner.version)} arena-runner --help
\`\`\`

## Files

${
  index.files.length === 0
    ? 'None: this server was started without a build (`npm run build` packs the runner).\n'
    : mdTable(
        ['File', 'Size', 'SHA-256'],
        index.files.map((f) => [`[${f.name}](${f.url})`, `${f.size_bytes} bytes`, `\`${f.sha256}\``]),
      )
}
JSON: send \`Accept: application/json\` to this address.
`;
}

/** JSON by default (`*\/*`: curl, fetch), the page for a browser, Markdown when asked for first. */
function sendIndex(
  request: FastifyRequest,
  reply: FastifyReply,
  publicUrl: string,
  index: z.infer<typeof downloadsIndex>,
) {
  reply.header('Vary', 'Accept').header('Cache-Control', 'public, max-age=300');
  const { accept } = request.headers;
  if (prefersMarkdown(accept)) return reply.type('text/markdown; charset=utf-8').send(indexMarkdown(publicUrl, index));
  if (prefersHtmlToJson(accept))
    return reply
      .type('text/html; charset=utf-8')
      .send(docsPage({ title: 'Downloads', bodyHtml: renderMarkdown(indexMarkdown(publicUrl, index)) }));
  return reply.send(index);
}

export const downloadRoutes: FastifyPluginAsyncZod<{
  publicUrl: string;
  downloads: ReadonlyMap<string, Download>;
}> = async (app, { publicUrl, downloads }) => {
  const index: z.infer<typeof downloadsIndex> = {
    runner: runnerDownloadJson(publicUrl, downloads),
    files: [...downloads.values()].map((d) => ({
      name: d.name,
      url: `${publicUrl}${DOWNLOADS_PATH}${d.name}`,
      size_bytes: d.bytes.length,
      sha256: d.sha256,
    })),
  };

  app.get(
    DOWNLOADS_PATH,
    {
      schema: {
        summary: 'What this arena serves for download (the runner first), with SHA-256s: JSON, or a page for a browser',
        tags: ['discovery'],
        response: {
          200: {
            description: 'The downloads',
            content: {
              'application/json': { schema: downloadsIndex },
              'text/html': { schema: z.string() },
              'text/markdown': { schema: z.string() },
            },
          },
        },
      },
    },
    async (request, reply) => sendIndex(request, reply, publicUrl, index),
  );
  // A convenience for people typing the address; not part of the API.
  app.get('/downloads', { schema: { hide: true } }, async (_request, reply) => reply.redirect(DOWNLOADS_PATH, 301));

  app.get(
    `${DOWNLOADS_PATH}:name`,
    {
      schema: {
        summary: 'One download (a gzipped tarball npm installs), or its SHA-256 line with the .sha256 suffix',
        tags: ['discovery'],
        params: z.object({
          name: z.string().max(100).describe('a file listed at /downloads/, or that name + .sha256'),
        }),
        response: {
          200: {
            description: 'The file, or `<sha256>  <name>` for `sha256sum -c`',
            content: {
              'application/gzip': {
                schema: z.custom<Buffer>((v) => Buffer.isBuffer(v)).meta({ type: 'string', format: 'binary' }),
              },
              'text/plain': { schema: z.string() },
            },
          },
          ...errors(404),
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const checksum = name.endsWith(SHA256_SUFFIX);
      const file = downloads.get(checksum ? name.slice(0, -SHA256_SUFFIX.length) : name);
      if (!file)
        throw new ApiError(
          404,
          `there is no download named ${name}; the downloads are listed at ${publicUrl}${DOWNLOADS_PATH}`,
        );
      // Versioned names, but a rebuild of the same version may change the bytes: revalidated by digest.
      reply
        .header('Cache-Control', 'public, max-age=300')
        .header('ETag', `"${file.sha256}"`)
        .header('Access-Control-Allow-Origin', '*');
      if (checksum) return reply.type('text/plain; charset=utf-8').send(`${file.sha256}  ${file.name}\n`);
      return reply
        .type('application/gzip')
        .header('Content-Disposition', `attachment; filename="${file.name}"`)
        .header('Repr-Digest', `sha-256=:${Buffer.from(file.sha256, 'hex').toString('base64')}:`)
        .send(file.bytes);
    },
  );
};
