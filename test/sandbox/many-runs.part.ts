/**
 * Many isolated runs in one process, as a worker holding many sessions makes them: one after another
 * in a session leave nothing behind that would count against its process limit; at once, the
 * process's descriptors stay few, and a run that cannot start fails alone instead of taking the
 * process down (those cases run in a child process of their own, since they exhaust descriptors).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxSettings } from '../../infra/config';
import { probeOf, runIsolated } from '../../infra/sandbox/isolation';
import { removeWorkspace, type Workspace } from '../../infra/sandbox/workspaces';
import { freshSessionId, freshWorkspace, removeSandboxScratch, sandboxScratch } from './support';

const REPO = path.resolve(__dirname, '../..');

/** Runs at once, each in a workspace of its own, as the sessions of one worker (a session's uid caps its own processes). */
const AT_ONCE = 30;

let settings: SandboxSettings;
let workspaces: Workspace[];

beforeAll(async () => {
  settings = await sandboxScratch();
  workspaces = await Promise.all(Array.from({ length: AT_ONCE }, () => freshWorkspace(settings)));
});
afterAll(async () => {
  await Promise.all(workspaces.map((workspace) => removeWorkspace(workspace)));
  await removeSandboxScratch(settings);
});

interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `body` (TypeScript, with `run(i)` making one isolated `echo` in workspace i) in a node child under `prlimit` options. */
async function inChild(body: string[], prlimit: string[] = []): Promise<ChildOutcome> {
  const script = path.join(settings.dir, `many-runs-${freshSessionId()}.ts`);
  fs.writeFileSync(
    script,
    [
      `import fs from 'node:fs';`,
      `import { checkIsolation, runIsolated } from ${JSON.stringify(path.join(REPO, 'infra/sandbox/isolation'))};`,
      `const probe = ${JSON.stringify(probeOf(settings))};`,
      `const workspaces = ${JSON.stringify(workspaces)};`,
      `const limits = ${JSON.stringify(settings.limits)};`,
      `const run = (i = 0) => runIsolated({ workspace: workspaces[i]!, command: ['echo', 'ok'], timeoutSeconds: 20, limits });`,
      `const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;`,
      `async function main() {`,
      `  await checkIsolation(probe);`,
      ...body,
      `}`,
      `void main();`,
    ].join('\n'),
  );
  try {
    const child = spawn('prlimit', [...prlimit, '--', process.execPath, '--import', 'tsx', script], { cwd: REPO });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, stderr };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** Every process running as `uid`, zombies included: a zombie still counts against the uid's process limit. */
function everyProcessOf(uid: number): string[] {
  return fs
    .readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      const status = (() => {
        try {
          return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
        } catch {
          return '';
        }
      })();
      return new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status);
    });
}

describe('many isolated runs in one process', () => {
  it('runs 100 in a row in one workspace, each leaving no process of its uid behind, not even a zombie', async () => {
    const [workspace] = workspaces;
    const failed: string[] = [];
    const leftovers: string[] = [];
    for (let i = 0; i < 100; i++) {
      const result = await runIsolated({
        workspace: workspace!,
        command: ['echo', 'ok'],
        timeoutSeconds: 20,
        limits: settings.limits,
      });
      if (result.stdout !== 'ok\n') failed.push(`run ${i}: ${result.stderr.trim()}`);
      const left = everyProcessOf(workspace!.uid);
      if (left.length > 0) leftovers.push(`run ${i}: ${left.join(' ')}`);
    }
    expect(failed).toEqual([]);
    expect(leftovers).toEqual([]);
  });

  it(`runs ${AT_ONCE} at once within 400 descriptors, and the process holds no more afterwards than before`, async () => {
    const outcome = await inChild(
      [
        `  await run();`,
        `  const before = openDescriptors();`,
        `  const results = await Promise.all(workspaces.map((_, i) => run(i)));`,
        `  const after = openDescriptors();`,
        `  process.stdout.write(JSON.stringify({ before, after, outputs: results.map((r) => r.stdout) }));`,
      ],
      ['--nofile=400:400'],
    );
    expect(outcome.stderr).not.toMatch(/EMFILE/);
    expect(outcome.code).toBe(0);
    const { before, after, outputs } = JSON.parse(outcome.stdout) as {
      before: number;
      after: number;
      outputs: string[];
    };
    expect(outputs).toEqual(Array<string>(AT_ONCE).fill('ok\n'));
    expect(after).toBeLessThanOrEqual(before);
  });

  it('fails a run that cannot start (no descriptors left) and keeps the process running', async () => {
    const outcome = await inChild(
      [
        `  await run();`,
        // Fill the descriptor table, then free a few: too few for a sandbox's pipes.
        `  const held: number[] = [];`,
        `  try { for (;;) held.push(fs.openSync('/dev/null', 'r')); } catch {}`,
        `  for (const fd of held.splice(-3)) fs.closeSync(fd);`,
        `  const refused = await run().then(() => 'ran', (err: Error) => err.message);`,
        `  for (const fd of held) fs.closeSync(fd);`,
        `  const again = await run();`,
        `  process.stdout.write(JSON.stringify({ refused, again: again.stdout }));`,
      ],
      ['--nofile=256:256'],
    );
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    const { refused, again } = JSON.parse(outcome.stdout) as { refused: string; again: string };
    expect(refused).toMatch(/could not be started.*EMFILE/);
    expect(again).toBe('ok\n');
  });
});
