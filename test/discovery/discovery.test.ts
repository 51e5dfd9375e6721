/**
 * What tells an agent author how to join: documents, downloads, the OpenAPI document and the well-
 * known files. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['doc-links', 'downloads', 'openapi-boards', 'request-base', 'well-known-stored', 'quick-start']);
