/** The runner as the arena serves it: the tarball's name and address, and the command that runs it from there. */

/** Where the arena serves what agent owners download. */
export const DOWNLOADS_PATH = '/downloads/';

/** The file `npm pack` makes of the runner package at this version. */
export function runnerTarball(version: string): string {
  return `arena-runner-${version}.tgz`;
}

export function runnerDownloadUrl(publicUrl: string, version: string): string {
  return `${publicUrl}${DOWNLOADS_PATH}${runnerTarball(version)}`;
}

/**
 * The command that runs a pull agent on any machine with Node.js and the public npm registry:
 * npx installs the runner from the arena's own tarball into its cache (never into the folder it
 * runs in), its dependencies from the registry, and runs it. Nothing is looked up by name, so a
 * package someone else publishes as `arena-runner` is never what runs.
 */
export function runCommand(publicUrl: string, agentId: number | string, runnerVersion: string): string {
  return `npx --yes --package ${runnerDownloadUrl(publicUrl, runnerVersion)} arena-runner run --base-url ${publicUrl} --agent ${agentId} --secret <AGENT_SECRET> -- <your-agent-command>`;
}
