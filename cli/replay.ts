/**
 * `arena replay`: replays workflow histories (from Temporal by id or visibility query, or from
 * JSON files) against the workflow code of this checkout, and names every one that no longer
 * replays (a non-deterministic change) before it is deployed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, type ReplayHistoriesIterable } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { historyFromJson } from '../infra/temporal/history-json';
import { CommandError, type Print } from './command';

export interface ReplayOptions {
  workflowId?: string;
  query?: string;
  file?: string[];
  /** Another workflows module to replay against (a candidate change); default: this checkout's `workflows/`. */
  workflows?: string;
  limit?: string;
}

const DEFAULT_WORKFLOWS = path.resolve(__dirname, '..', 'workflows');

/** The bundler and replay worker log at INFO through the runtime; a command line wants warnings only. */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // This process already has a runtime (inside the service or a test); its logger stays.
  }
}

async function* fromFiles(
  files: string[],
): AsyncIterable<{ workflowId: string; history: ReturnType<typeof historyFromJson> }> {
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new CommandError(`cannot read ${file}: ${(err as Error).message}`);
    }
    try {
      yield { workflowId: path.basename(file, '.json'), history: historyFromJson(json) };
    } catch (err) {
      throw new CommandError(`${file}: ${(err as Error).message}`);
    }
  }
}

async function* limited<T>(source: AsyncIterable<T>, limit: number): AsyncIterable<T> {
  let n = 0;
  for await (const item of source) {
    if (n++ >= limit) return;
    yield item;
  }
}

function histories(client: Client | undefined, options: ReplayOptions): ReplayHistoriesIterable {
  const sources = [options.workflowId, options.query, options.file?.length ? options.file : undefined].filter(
    (s) => s !== undefined,
  );
  if (sources.length !== 1) throw new CommandError('give exactly one of --workflow-id, --query or --file');
  const limit = options.limit ? Number(options.limit) : 1000;
  if (!Number.isInteger(limit) || limit < 1) throw new CommandError('--limit: must be a positive integer');
  if (options.file?.length) return fromFiles(options.file);
  const temporal = client;
  if (!temporal) throw new CommandError('replaying by --workflow-id or --query needs the Temporal server');
  return (async function* () {
    if (options.workflowId) {
      yield {
        workflowId: options.workflowId,
        history: await temporal.workflow.getHandle(options.workflowId).fetchHistory(),
      };
      return;
    }
    yield* limited(temporal.workflow.list({ query: options.query! }).intoHistories({ concurrency: 5 }), limit);
  })();
}

/** Returns the number of histories that failed to replay; every result is printed. */
export async function replayCommand(client: Client | undefined, options: ReplayOptions, print: Print): Promise<number> {
  const workflowsPath = path.resolve(options.workflows ?? DEFAULT_WORKFLOWS);
  if (options.workflows && !fs.existsSync(workflowsPath))
    throw new CommandError(`--workflows: no such file or folder: ${workflowsPath}`);
  const input = histories(client, options);
  quietRuntime();
  let total = 0;
  let failed = 0;
  for await (const result of Worker.runReplayHistories({ workflowsPath }, input)) {
    total++;
    if (!result.error) {
      print(`ok                 ${result.workflowId}`);
      continue;
    }
    failed++;
    const label = result.error instanceof DeterminismViolationError ? 'NON-DETERMINISTIC' : 'FAILED           ';
    print(`${label}  ${result.workflowId}: ${result.error.message}`);
  }
  if (total === 0) throw new CommandError('no histories matched; nothing was replayed');
  print(
    `replayed ${total} histor${total === 1 ? 'y' : 'ies'} against ${path.relative(process.cwd(), workflowsPath) || '.'}: ${total - failed} ok, ${failed} failed`,
  );
  return failed;
}
