/**
 * The built API and worker processes under faults: a worker killed with deliveries in flight, the
 * API restarted under long-polling runners, and a worker that crashes mid-delivery. Each part is a
 * test file of its own, run in this file's module registry (test/support/parts.ts).
 */
import path from 'node:path';
import { runParts } from '../support/parts';

runParts(__dirname, ['worker-kill', 'api-restart']);
runParts(path.join(__dirname, '..', 'durability'), ['worker-crash']);
