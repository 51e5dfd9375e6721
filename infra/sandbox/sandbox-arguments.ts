/**
 * The command line that runs one sandboxed command: prlimit sets the limits, setpriv becomes the session's
 * uid, bubblewrap builds the sandbox. Pure: everything it needs about the machine is in `SystemLayout`.
 */
import type { SandboxLimits } from './settings';
import { NODE_MOUNT, type SandboxTools, type SystemLayout } from './system-layout';

/** The workspace inside the sandbox, also its working folder and HOME. */
export const SANDBOX_WORKSPACE = '/workspace';

/**
 * Descriptors the sandbox's start-up reads from (3-5: files bubblewrap writes into /etc) and writes to
 * (6), the one a test harness reports on (7), and the wire between a judge and its candidate (8 in,
 * 9 out), passed through to the command.
 */
export const DATA_FDS = { passwd: 3, group: 4, hosts: 5 } as const;
export const INFO_FD = 6;
export const REPORT_FD = 7;
export const WIRE_IN_FD = 8;
export const WIRE_OUT_FD = 9;
export const FIRST_FREE_FD = 10;

/**
 * System configuration the sandbox may see; the rest of /etc may hold secrets (/etc/shadow, keys, the
 * service's own configuration) and stays out. Missing ones are skipped.
 */
const ETC_FILES = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime'];

export interface SandboxInvocation {
  tools: SandboxTools;
  layout: SystemLayout;
  workspaceDir: string;
  uid: number;
  limits: SandboxLimits;
  /** The program and its arguments, as run inside. */
  argv: string[];
  /** Shown read-only (the scoring sandbox: nothing the code under test does changes its files). */
  workspaceReadOnly?: boolean;
  /** HOME inside; the workspace by default. */
  home?: string;
  /** Host folders shown read-only inside, as [host, inside]. */
  readOnlyBinds?: ReadonlyArray<readonly [string, string]>;
  /** Host folders shown writable inside, as [host, inside] (a judge's scratch folder). */
  readWriteBinds?: ReadonlyArray<readonly [string, string]>;
}

/** The arguments of `tools.prlimit`, which execs setpriv, which execs bwrap, which runs `argv`. */
export function sandboxArguments(run: SandboxInvocation): string[] {
  const { tools, limits, uid } = run;
  const both = (value: number) => `${value}:${value}`;
  return [
    `--as=${both(limits.memoryBytes)}`,
    `--nproc=${both(limits.processes)}`,
    // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL for a command that ignores it.
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--fsize=${both(limits.fileSizeBytes)}`,
    `--nofile=${both(limits.openFiles)}`,
    '--core=0:0',
    '--',
    tools.setpriv,
    `--reuid=${uid}`,
    `--regid=${uid}`,
    '--clear-groups',
    '--',
    tools.bwrap,
    ...bwrapArguments(run),
  ];
}

function bwrapArguments(run: SandboxInvocation): string[] {
  const { layout, workspaceDir, limits, argv } = run;
  const tmpfs = (target: string) => ['--size', String(limits.tmpBytes), '--tmpfs', target];
  return [
    // Network, PID, IPC, UTS, cgroup and user namespaces of its own; no user namespaces inside.
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    // The sandbox's PID 1 is the shell below, not bubblewrap's own: that one outlived bubblewrap and
    // was left to the host's init to reap; until then its zombie counted against the session's
    // process limit, and an init that reaps slowly (or a worker that is PID 1 in a container) let
    // them pile up until the session could not start a command. When the shell exits, the kernel
    // ends the rest of the namespace and bubblewrap, its parent, reaps it.
    '--as-pid-1',
    '--new-session',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    ...layout.topLevel.flatMap((folder) =>
      folder.linkTo ? ['--symlink', folder.linkTo, folder.path] : ['--ro-bind', folder.path, folder.path],
    ),
    ...ETC_FILES.flatMap((file) => ['--ro-bind-try', file, file]),
    '--ro-bind-data',
    String(DATA_FDS.passwd),
    '/etc/passwd',
    '--ro-bind-data',
    String(DATA_FDS.group),
    '/etc/group',
    '--ro-bind-data',
    String(DATA_FDS.hosts),
    '/etc/hosts',
    ...(layout.nodeOutsideUsr ? ['--ro-bind', layout.nodeOutsideUsr, NODE_MOUNT] : []),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...tmpfs('/dev/shm'),
    ...tmpfs('/tmp'),
    run.workspaceReadOnly ? '--ro-bind' : '--bind',
    workspaceDir,
    SANDBOX_WORKSPACE,
    ...(run.readOnlyBinds ?? []).flatMap(([host, inside]) => ['--ro-bind', host, inside]),
    ...(run.readWriteBinds ?? []).flatMap(([host, inside]) => ['--bind', host, inside]),
    '--chdir',
    SANDBOX_WORKSPACE,
    // Unsized memory otherwise: everything writable is then the workspace and the two sized tmpfs.
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--info-fd',
    String(INFO_FD),
    '--clearenv',
    '--setenv',
    'PATH',
    layout.path.join(':'),
    '--setenv',
    'HOME',
    run.home ?? SANDBOX_WORKSPACE,
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--',
    // The command runs as the shell's child, not as PID 1, so signals reach it as anywhere else (a
    // PID 1 ignores those it has no handler for, the CPU limit's SIGXCPU and SIGPIPE among them);
    // the shell exits with its status, 128 + n for signal n.
    '/bin/sh',
    '-c',
    '"$@"; exit $?',
    'sandbox',
    ...argv,
  ];
}

/** /etc/passwd, /etc/group and /etc/hosts of a sandbox: its user has a name, and localhost resolves. */
export function sandboxDataFiles(uid: number): Record<keyof typeof DATA_FDS, string> {
  return {
    passwd: [
      'root:x:0:0:root:/root:/usr/sbin/nologin',
      `sandbox:x:${uid}:${uid}:sandbox:${SANDBOX_WORKSPACE}:/bin/sh`,
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
      '',
    ].join('\n'),
    group: ['root:x:0:', `sandbox:x:${uid}:`, 'nogroup:x:65534:', ''].join('\n'),
    hosts: ['127.0.0.1\tlocalhost sandbox', '::1\tlocalhost ip6-localhost ip6-loopback', ''].join('\n'),
  };
}
