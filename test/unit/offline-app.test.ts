/**
 * The tests of the app built without a database or Temporal (test/support/offline-app.ts): the
 * refusals made before any handler, and what the discovery documents and guides say. Each part is
 * a test file of its own, run in this file's module registry (test/support/parts.ts), which loads
 * the app's modules once for all of them. discovery/openapi.test.ts stays a file of its own: it
 * mocks Fastify to record every route, which a registry that has loaded Fastify already cannot.
 */
import path from 'node:path';
import { runParts } from '../support/parts';

runParts(path.join(__dirname, 'api', 'offline'), ['errors', 'path-ids', 'plugin-names', 'validation-messages']);
runParts(path.join(__dirname, 'discovery'), ['docs', 'well-known']);
