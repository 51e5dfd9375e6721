import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { HostUidLocks, uidLockName } from '../../../infra/sandbox/host-uid-locks';

// A uid far from any range the arena or the other tests use.
const UID = 3_900_000 + (process.pid % 1000);

describe('host-wide uid locks', () => {
  it('lets one holder on the machine have a uid, and the next take it once given back', async () => {
    const [first, second] = [new HostUidLocks(), new HostUidLocks()];
    try {
      expect(await first.hold(UID)).toBe(true);
      // Holding again is holding.
      expect(await first.hold(UID)).toBe(true);
      expect(await second.hold(UID)).toBe(false);
      expect(await second.hold(UID + 1)).toBe(true);
      await first.release(UID);
      expect(first.holds(UID)).toBe(false);
      expect(await second.hold(UID)).toBe(true);
    } finally {
      await Promise.all([first.releaseAll(), second.releaseAll()]);
    }
  });

  it("is honoured across processes, and the kernel gives a killed holder's lock back", async () => {
    // Another arena's worker: holds the uid until it is killed.
    const other = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen(${JSON.stringify(uidLockName(UID))}, () => console.log('held'))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(other.stdout!, 'data');
      const locks = new HostUidLocks();
      expect(await locks.hold(UID)).toBe(false);
      other.kill('SIGKILL');
      await once(other, 'exit');
      expect(await locks.hold(UID)).toBe(true);
      await locks.releaseAll();
    } finally {
      other.kill('SIGKILL');
    }
  });
});
