/**
 * Descriptors this process would pass on to every child: ones it inherited without close-on-exec (from a
 * supervisor, a shell, a test runner). Node opens its own with close-on-exec, but these would reach a
 * sandbox, and a descriptor of a host folder there is a way out of it.
 *
 * They are found once per process: they come with it, and Node opens nothing without close-on-exec
 * later. Looking again for every run cost a read per open descriptor, and runs looking at once saw
 * each other's reads as more descriptors to read, until the process ran out of them.
 */
import fs from 'node:fs/promises';

const O_CLOEXEC = 0o2000000;

let found: Promise<number[]> | undefined;

export function inheritedDescriptors(): Promise<number[]> {
  found ??= examine();
  return found;
}

async function examine(): Promise<number[]> {
  const fds = (await fs.readdir('/proc/self/fd')).map(Number).filter((fd) => fd >= 3);
  const inherited: number[] = [];
  for (const fd of fds) {
    // Gone between the listing and the read: it was the listing's own descriptor, or just closed.
    const info = await fs.readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => undefined);
    const flags = info === undefined ? undefined : /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) inherited.push(fd);
  }
  return inherited;
}
