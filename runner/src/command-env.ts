/** The environment an agent command runs with: the basics any program needs and what the owner names, never the agent secret. */

/**
 * Passed from the runner's environment when set: where programs, home, temp files and CA bundles
 * are, the locale and time zone, and what Windows needs to start a process at all. Nothing here
 * holds a credential; proxy settings are left out because their URLs may carry one.
 */
export const BASIC_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
];
/** Every `LC_*` locale variable is passed too. */
const BASIC_PREFIX = 'LC_';

export const SECRET_VARIABLE = 'ARENA_AGENT_SECRET';
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An `--env` the runner refuses; the message names the variable, never its value. */
export class CommandEnvError extends Error {}

export interface CommandEnvOptions {
  /** The agent secret: no variable whose value contains it is passed. */
  secret: string;
  /** Names the owner passes explicitly (`--env NAME`), taken from `source`. */
  pass?: readonly string[];
}

/**
 * Builds the command's environment from `source` (the runner's own). Throws CommandEnvError for
 * an `--env` name that is unset, is the secret's variable, or holds the secret under another name.
 */
export function commandEnvironment(source: NodeJS.ProcessEnv, opts: CommandEnvOptions): Record<string, string> {
  const holdsSecret = (value: string) => opts.secret !== '' && value.includes(opts.secret);
  // Windows names are case-insensitive (`Path`, `SystemRoot`); elsewhere `path` is another variable.
  const fold = process.platform === 'win32' ? (name: string) => name.toUpperCase() : (name: string) => name;
  const basics = new Set(BASIC_VARIABLES.map(fold));

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || holdsSecret(value)) continue;
    if (basics.has(fold(name)) || fold(name).startsWith(BASIC_PREFIX)) env[name] = value;
  }
  for (const name of opts.pass ?? []) {
    if (fold(name) === fold(SECRET_VARIABLE))
      throw new CommandEnvError(`--env ${name}: the agent secret is never passed to the command`);
    const value = source[name];
    if (value === undefined) throw new CommandEnvError(`--env ${name}: not set in the runner environment`);
    if (holdsSecret(value))
      throw new CommandEnvError(`--env ${name}: it holds the agent secret, which is never passed to the command`);
    env[name] = value;
  }
  return env;
}
