/**
 * Loads openid-client inside jest. Jest's CommonJS runtime refuses `import()` unless node runs
 * with --experimental-vm-modules, so the import runs in a script compiled with Node's own default
 * loader instead: the module is the real ES module, the same code production imports.
 */
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import type { OpenidClient, OpenidClientLoader } from '../../../api/web/auth/oidc-client';

const nodeImport = new vm.Script('(url) => import(url)', {
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext() as (url: string) => Promise<unknown>;

export const loadOpenidClientInJest: OpenidClientLoader = () =>
  nodeImport(pathToFileURL(require.resolve('openid-client')).href) as Promise<OpenidClient>;
