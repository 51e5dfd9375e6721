import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../infra/config';
import { workflowBundleOf } from '../../../worker/workflow-bundle';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-bundle-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the workflow bundle a worker loads', () => {
  it('is the configured one, which must exist', () => {
    const configured = path.join(dir, 'made-ahead.js');
    expect(() => workflowBundleOf(configured, path.join(dir, 'built.js'))).toThrow(
      new ConfigError(`ARENA_WORKFLOW_BUNDLE: there is no workflow bundle at ${configured}`),
    );
    fs.writeFileSync(configured, '');
    fs.writeFileSync(path.join(dir, 'built.js'), '');
    expect(workflowBundleOf(configured, path.join(dir, 'built.js'))).toEqual({ codePath: configured });
  });

  it("is the build's when none is configured, and none (bundle at start) without a build", () => {
    const built = path.join(dir, 'built.js');
    expect(workflowBundleOf(undefined, built)).toBeUndefined();
    fs.writeFileSync(built, '');
    expect(workflowBundleOf(undefined, built)).toEqual({ codePath: built });
  });
});
