/**
 * The judge's module hooks (module.register): a hidden test's import of the code under test resolves
 * to a module of the judge's making whose exports are what the candidate sent for that module (data,
 * or handles). Their names come from the judge's main thread, which asks the candidate.
 */
import { fileURLToPath } from 'node:url';
import { candidatePath } from './judge-paths.mjs';

const SCHEME = 'arena-candidate:';
let port;
let testsRoot;
let next = 0;
const waiting = new Map();

export function initialize(data) {
  port = data.port;
  testsRoot = data.testsRoot;
  port.on('message', ({ id, names, error }) => {
    const asked = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) port.unref();
    if (error !== undefined) asked?.reject(new Error(error));
    else asked?.resolve(names);
  });
  port.unref();
}

function exportNames(relative) {
  return new Promise((resolve, reject) => {
    const id = ++next;
    waiting.set(id, { resolve, reject });
    port.ref();
    port.postMessage({ id, relative });
  });
}

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL?.startsWith('file:') ? fileURLToPath(context.parentURL) : undefined;
  const relative = candidatePath(specifier, parent, testsRoot);
  if (relative === null) return nextResolve(specifier, context);
  return { url: SCHEME + encodeURIComponent(relative), shortCircuit: true };
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith(SCHEME)) return nextLoad(url, context);
  const relative = decodeURIComponent(url.slice(SCHEME.length));
  const names = await exportNames(relative);
  const lines = [`const exports = globalThis[Symbol.for('arena.judge.modules')].get(${JSON.stringify(relative)});`];
  names.forEach((name, i) => {
    lines.push(`const e${i} = exports[${JSON.stringify(name)}];`, `export { e${i} as ${JSON.stringify(name)} };`);
  });
  return { format: 'module', source: lines.join('\n'), shortCircuit: true };
}
