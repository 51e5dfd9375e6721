/** The runner package this server ships and serves (`runner/`, the `arena-runner` workspace). */
import runnerManifest from 'arena-runner/package.json';

export const RUNNER_VERSION: string = runnerManifest.version;
