/**
 * Web sign-in: the auth plugin, sessions and OIDC. Each part is a test file of its own, run in this
 * file's module registry (test/support/parts.ts).
 */
import { runParts } from '../../support/parts';

runParts(__dirname, ['web-auth-plugin', 'web-sessions', 'oidc']);
