/**
 * A sandbox that ends while its run is still setting up keeps its output: Node discards the output
 * of a child that exits before anyone listens to it, so the run listens before it awaits anything.
 * bubblewrap waits for the files the run writes it, so a sandbox that starts cannot end that early;
 * one that fails at once can, and its words are the reason the worker gives. The set-up is made
 * slow on purpose: the worker covers an inherited descriptor with /dev/null, and closing that takes
 * 200 ms here.
 */
import fs from 'node:fs/promises';
import type { SandboxSettings } from '../../../infra/config';
import { probeOf } from '../../../infra/sandbox/isolation';
import { removeWorkspace, type Workspace } from '../../../infra/sandbox/workspaces';
import {
  BROKEN_BWRAP_PROBE,
  brokenBwrapTools,
  freshWorkspace,
  removeSandboxScratch,
  sandboxScratch,
} from '../../sandbox/support';

let settings: SandboxSettings;
let workspace: Workspace;

beforeAll(async () => {
  settings = await sandboxScratch();
  workspace = await freshWorkspace(settings);
});
afterAll(async () => {
  await removeWorkspace(workspace);
  await removeSandboxScratch(settings);
});

it("keeps bubblewrap's words when it fails before the run has finished setting up", async () => {
  const tools = await brokenBwrapTools();
  try {
    await jest.isolateModulesAsync(async () => {
      jest.doMock('../../../infra/sandbox/inherited-descriptors', () => ({
        inheritedDescriptors: () => Promise.resolve([200]),
      }));
      jest.doMock('node:fs/promises', () => {
        const actual = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
        const open: typeof actual.open = async (...args) => {
          const handle = await actual.open(...args);
          const close = handle.close.bind(handle);
          handle.close = async () => {
            await close();
            await new Promise((resolve) => setTimeout(resolve, 200));
          };
          return handle;
        };
        return { __esModule: true, ...actual, open, default: { ...actual, open } };
      });
      const { checkIsolation, probeIsolation, runIsolated } = await import('../../../infra/sandbox/isolation');
      await expect(probeIsolation(probeOf(settings), { toolDirs: [tools] })).resolves.toEqual(BROKEN_BWRAP_PROBE);
      // A real sandbox, with the same slow set-up, runs as ever.
      await expect(checkIsolation(probeOf(settings))).resolves.toEqual({ ok: true });
      const result = await runIsolated({
        workspace,
        command: 'echo out; echo err >&2',
        timeoutSeconds: 20,
        limits: settings.limits,
      });
      expect(result).toMatchObject({ exit_code: 0, stdout: 'out\n', stderr: 'err\n' });
    });
  } finally {
    await fs.rm(tools, { recursive: true, force: true });
  }
});
