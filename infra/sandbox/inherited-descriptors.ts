/**
 * Descriptors this process would pass on to every child: ones it inherited without close-on-exec (from a
 * supervisor, a shell, a test runner). Node opens its own with close-on-exec, but these would reach a
 * sandbox, and a descriptor of a host folder there is a way out of it.
 */
import fs from 'node:fs/promises';

const O_CLOEXEC = 0o2000000;

export async function inheritedDescriptors(): Promise<number[]> {
  const fds = (await fs.readdir('/proc/self/fd')).map(Number).filter((fd) => fd >= 3);
  const inherited = await Promise.all(
    fds.map(async (fd) => {
      // Gone between the listing and the read: it was the listing's own descriptor, or just closed.
      const info = await fs.readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => undefined);
      const flags = info === undefined ? undefined : /^flags:\s*([0-7]+)/m.exec(info)?.[1];
      return flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0;
    }),
  );
  return fds.filter((_, index) => inherited[index]);
}
