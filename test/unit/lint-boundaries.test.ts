/** The layer rule of eslint.config.mjs on in-memory files: imports run downward, workflows and domain stay pure. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REPO = path.resolve(__dirname, '..', '..');

interface Probe {
  file: string;
  code: string;
}

/**
 * ESLint's config is an ES module, which jest's CommonJS sandbox cannot import, so the rule runs in
 * a child Node. Only the layer rule runs: the type-aware rules need files that exist on disk.
 */
const LINT_SCRIPT = `
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import path from 'node:path';
import { arenaPlugin } from './eslint.config.mjs';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const linter = new Linter({ cwd: process.cwd() });
const config = [{
  files: ['**/*.ts'],
  languageOptions: { parser: tseslint.parser },
  plugins: { arena: arenaPlugin },
  rules: { 'arena/layers': 'error' },
}];
const results = JSON.parse(input).map(({ file, code }) =>
  linter.verify(code, config, path.join(process.cwd(), file)).map((m) => m.message));
process.stdout.write(JSON.stringify(results));
`;

async function lint(probes: Probe[]): Promise<string[][]> {
  const run = promisify(execFile);
  const child = run(process.execPath, ['--input-type=module', '-e', LINT_SCRIPT], { cwd: REPO });
  child.child.stdin!.end(JSON.stringify(probes));
  const { stdout } = await child;
  return JSON.parse(stdout) as string[][];
}

it('refuses upward imports, I/O in domain/ and anything but domain/ in workflows/, and allows the rest', async () => {
  const cases: Array<Probe & { error?: string }> = [
    // Downward imports are fine.
    { file: 'api/routes/probe.ts', code: "import { x } from '../../services/agents';" },
    {
      file: 'services/probe.ts',
      code: "import { x } from '../infra/db/orm';\nimport { y } from '../domain/credentials';",
    },
    { file: 'services/probe.ts', code: "import { deliverPrompt } from '../workflows';" },
    { file: 'activities/probe.ts', code: "import type { DeliveryInput } from '../workflows/contracts';" },
    { file: 'cli/probe.ts', code: "const server = require('../api/server');" },
    {
      file: 'workflows/probe.ts',
      code: "import type { createActivities } from '../activities';\nimport { x } from '../domain/deliveries';",
    },
    { file: 'workflows/probe.ts', code: "import { proxyActivities } from '@temporalio/workflow';" },
    {
      file: 'domain/ratings/probe.ts',
      code: "import crypto from 'node:crypto';\nimport { z } from 'zod';\nimport { x } from '../credentials';",
    },
    { file: 'test/probe.test.ts', code: "import { x } from '../api/server';" },
    // Upward imports are not.
    {
      file: 'services/probe.ts',
      code: "import { ApiError } from '../api/errors';",
      error: 'services/ may not import api/errors',
    },
    {
      file: 'services/probe.ts',
      code: "const cli = require('../cli/main');",
      error: 'services/ may not import cli/main',
    },
    {
      file: 'infra/db/probe.ts',
      code: "export { x } from '../../services/agents';",
      error: 'infra/ may not import services/agents',
    },
    {
      file: 'infra/probe.ts',
      code: "import type { Settlement } from '../workflows/contracts';",
      error: 'infra/ may not import workflows/contracts',
    },
    {
      file: 'domain/probe.ts',
      code: "import { x } from '../infra/config';",
      error: 'domain/ may not import infra/config',
    },
    { file: 'api/probe.ts', code: "import { main } from '../worker/main';", error: 'api/ may not import worker/main' },
    {
      file: 'activities/probe.ts',
      code: "import type { Settlement } from '../workflows/deliver-prompt';",
      error: 'activities/ may not import workflows/deliver-prompt',
    },
    {
      file: 'runner/src/probe.ts',
      code: "import { x } from '../../infra/webhook/client';",
      error: 'runner/ may not import infra/webhook/client',
    },
    // Workflows reach activities by type only, and only Temporal's workflow packages.
    {
      file: 'workflows/probe.ts',
      code: "import { createActivities } from '../activities';",
      error: 'workflows/ may import activities with `import type` only',
    },
    {
      file: 'workflows/probe.ts',
      code: "import { Client } from '@temporalio/client';",
      error: 'workflows/ may not import the package @temporalio/client',
    },
    {
      file: 'workflows/probe.ts',
      code: "import fs from 'node:fs';",
      error: 'workflows/ may not import the package node:fs',
    },
    // Domain does no I/O.
    {
      file: 'domain/probe.ts',
      code: "import { MikroORM } from '@mikro-orm/postgresql';",
      error: 'domain/ may not import the package @mikro-orm/postgresql',
    },
    {
      file: 'domain/probe.ts',
      code: "import { readFileSync } from 'node:fs';",
      error: 'domain/ may not import the package node:fs',
    },
    { file: 'domain/probe.ts', code: "const pg = require('pg');", error: 'domain/ may not import the package pg' },
  ];
  const results = await lint(cases);
  cases.forEach((c, i) => {
    const messages = results[i]!;
    if (c.error)
      expect({ file: c.file, messages }).toEqual({ file: c.file, messages: [expect.stringContaining(c.error)] });
    else expect({ file: c.file, messages }).toEqual({ file: c.file, messages: [] });
  });
}, 60_000);
