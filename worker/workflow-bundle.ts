/**
 * The workflow code bundled ahead of the worker's start. `npm run build` writes
 * dist/workflow-bundle.js from the compiled workflows (`node dist/worker/workflow-bundle.js`), and a
 * worker started from dist/ loads it instead of bundling at every start, which takes seconds of CPU.
 * ARENA_WORKFLOW_BUNDLE names another bundle; a worker run from the sources bundles at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { ConfigError } from '../infra/config';

/** Beside the compiled worker's folder: dist/workflow-bundle.js. */
export const BUILT_WORKFLOW_BUNDLE = path.join(__dirname, '..', 'workflow-bundle.js');

/** The bundle a worker loads: the one configured (which must exist), else the build's if there is one; undefined means bundle at start. */
export function workflowBundleOf(
  configured: string | undefined,
  built = BUILT_WORKFLOW_BUNDLE,
): { codePath: string } | undefined {
  if (configured) {
    if (!fs.existsSync(configured))
      throw new ConfigError(`ARENA_WORKFLOW_BUNDLE: there is no workflow bundle at ${configured}`);
    return { codePath: configured };
  }
  return fs.existsSync(built) ? { codePath: built } : undefined;
}

/** Bundles the workflows beside this file into `file`. */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: new DefaultLogger('WARN'),
  });
  await fs.promises.writeFile(file, code);
}

if (require.main === module) {
  writeWorkflowBundle(BUILT_WORKFLOW_BUNDLE).then(
    () => undefined,
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
