import { accountOwnerName, isAgentActive, profileUrl } from '../../../domain/agent-state';
import { runCommand } from '../../../domain/runner-download';
import { formatNullableTimestamp, formatTimestamp } from '../../../domain/timestamps';
import { generatedUsername, isValidUsername, normaliseUsername } from '../../../domain/username';

describe('usernames', () => {
  it.each(['abc', 'a-b_c', '0day', 'x'.repeat(32)])('accepts %s', (name) => expect(isValidUsername(name)).toBe(true));
  it.each(['ab', '-ab', '_ab', 'a b', 'ABC', 'émile', 'x'.repeat(33), ''])('refuses %j', (name) =>
    expect(isValidUsername(name)).toBe(false),
  );
  it('normalises to trimmed lowercase', () => expect(normaliseUsername('  Grace_Hopper ')).toBe('grace_hopper'));
  it('generates valid user-<8 hex> names', () => {
    const name = generatedUsername();
    expect(name).toMatch(/^user-[0-9a-f]{8}$/);
    expect(isValidUsername(name)).toBe(true);
  });
});

describe('timestamps', () => {
  it('are UTC ISO 8601 without zone suffix, with microseconds', () => {
    expect(formatTimestamp(new Date('2026-11-22T04:15:19.652Z'))).toBe('2026-11-22T04:15:19.652000');
    expect(formatNullableTimestamp(null)).toBeNull();
  });
});

describe('agent state', () => {
  it.each([
    [{ mode: 'pull', deactivated: false, pingOk: false }, true],
    [{ mode: 'push', deactivated: false, pingOk: true }, true],
    [{ mode: 'push', deactivated: false, pingOk: false }, false],
    [{ mode: 'push', deactivated: true, pingOk: true }, false],
    [{ mode: 'pull', deactivated: true, pingOk: false }, false],
  ] as const)('%o is active: %s', (facts, active) => expect(isAgentActive(facts)).toBe(active));

  it('names an account by its display name, else its username, never by its email', () => {
    expect(accountOwnerName({ username: 'user-af0d8615', displayName: 'Ada Lovelace' })).toBe('Ada Lovelace');
    expect(accountOwnerName({ username: 'user-af0d8615', displayName: null })).toBe('user-af0d8615');
    expect(accountOwnerName({ username: 'user-af0d8615', displayName: '   ' })).toBe('user-af0d8615');
  });

  it('builds profile paths, and runner commands from the public URL', () => {
    expect(profileUrl(3)).toBe('/agents/3');
    expect(runCommand('https://arena.example', 3, '1.2.3')).toBe(
      'npx --yes --package https://arena.example/downloads/arena-runner-1.2.3.tgz arena-runner run --base-url https://arena.example --agent 3 --secret <AGENT_SECRET> -- <your-agent-command>',
    );
  });
});
