/** What this machine gives a coding sandbox: the tools that build it, the system folders it shows read-only, node. */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface SandboxTools {
  bwrap: string;
  setpriv: string;
  prlimit: string;
  /** Workspaces are file systems of their own, sized by their disk quota. */
  mount: string;
  umount: string;
}

/** Fixed folders, not the worker's PATH: what runs as root to build the sandbox should not depend on an environment. */
export const TOOL_DIRS = ['/usr/bin', '/usr/sbin', '/bin', '/sbin', '/usr/local/bin'];

export const TOOL_PACKAGES: Record<keyof SandboxTools, string> = {
  bwrap: "Debian's bubblewrap package",
  setpriv: 'the util-linux package',
  prlimit: 'the util-linux package',
  mount: 'the mount package',
  umount: 'the mount package',
};

export async function findSandboxTools(
  dirs: string[] = TOOL_DIRS,
): Promise<SandboxTools | { missing: keyof SandboxTools }> {
  const found: Partial<SandboxTools> = {};
  for (const tool of Object.keys(TOOL_PACKAGES) as Array<keyof SandboxTools>) {
    for (const dir of dirs) {
      const file = path.join(dir, tool);
      if (await isExecutableFile(file)) {
        found[tool] = file;
        break;
      }
    }
    if (!found[tool]) return { missing: tool };
  }
  return found as SandboxTools;
}

/** A system folder at the top of the file system: a link into /usr on merged-/usr systems, else a folder to bind. */
export interface TopLevelFolder {
  path: string;
  /** Where the link points (`usr/bin`), recreated as is in the sandbox. */
  linkTo?: string;
}

export interface SystemLayout {
  topLevel: TopLevelFolder[];
  /** The folder holding the worker's own node when it is outside /usr: shown read-only at NODE_MOUNT. */
  nodeOutsideUsr?: string;
  /** Folders for PATH, first to last. */
  path: string[];
  /** The interpreters a task's tests run with, as the sandbox sees them (python3 is absent on a machine without it). */
  interpreters: { node: string; python3?: string };
}

/** Where the worker's node appears in the sandbox when it lives outside /usr (nvm, a tarball in /opt). */
export const NODE_MOUNT = '/opt/node/bin';
const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

export async function systemLayout(nodeBinary: string = process.execPath): Promise<SystemLayout> {
  const topLevel: TopLevelFolder[] = [];
  for (const folder of TOP_LEVEL) {
    const stat = await fs.lstat(folder).catch(() => undefined);
    if (stat?.isSymbolicLink()) topLevel.push({ path: folder, linkTo: await fs.readlink(folder) });
    else if (stat?.isDirectory()) topLevel.push({ path: folder });
  }
  const realNode = await fs.realpath(nodeBinary);
  const nodeDir = path.dirname(realNode);
  let python3: string | undefined;
  for (const dir of SYSTEM_PATH) {
    if (await isExecutableFile(path.join(dir, 'python3'))) {
      python3 = path.join(dir, 'python3');
      break;
    }
  }
  if (!nodeDir.startsWith('/usr/')) {
    const node = path.posix.join(NODE_MOUNT, path.basename(realNode));
    return { topLevel, nodeOutsideUsr: nodeDir, path: [NODE_MOUNT, ...SYSTEM_PATH], interpreters: { node, python3 } };
  }
  return {
    topLevel,
    path: SYSTEM_PATH.includes(nodeDir) ? SYSTEM_PATH : [nodeDir, ...SYSTEM_PATH],
    interpreters: { node: realNode, python3 },
  };
}

/** Capabilities the worker needs to give a session's uid a workspace with a disk quota, run as it and stop it. */
const NEEDED_CAPABILITIES: Array<[name: string, bit: number]> = [
  ['CAP_CHOWN', 0],
  ['CAP_DAC_OVERRIDE', 1],
  ['CAP_FOWNER', 3],
  ['CAP_KILL', 5],
  ['CAP_SETGID', 6],
  ['CAP_SETUID', 7],
  ['CAP_SYS_ADMIN', 21],
];

/** The capabilities this process lacks for that, by name (none for root in an ordinary container). */
export async function missingCapabilities(): Promise<string[]> {
  const status = await fs.readFile('/proc/self/status', 'utf8');
  const effective = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0'}`);
  return NEEDED_CAPABILITIES.filter(([, bit]) => (effective & (1n << BigInt(bit))) === 0n).map(([name]) => name);
}

/** Why the kernel will not give an unprivileged process a user namespace, when a setting says so plainly. */
export async function userNamespacesRefused(): Promise<string | undefined> {
  const read = (file: string) =>
    fs.readFile(file, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
  if ((await read('/proc/sys/kernel/unprivileged_userns_clone')) === '0')
    return 'unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone = 0)';
  if ((await read('/proc/sys/user/max_user_namespaces')) === '0')
    return 'user namespaces are disabled (sysctl user.max_user_namespaces = 0)';
  return undefined;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, fs.constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
