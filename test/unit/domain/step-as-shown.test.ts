/** What a coding step's row keeps past its retention: what the transcript shows of it, no more. */
import { stepAsShown } from '../../../domain/sandbox/transcript';

const long = (c: string) => c.repeat(5000);
const cut = (c: string) => `${c.repeat(2000)}\n… (3000 more characters)`;

describe('stepAsShown', () => {
  it('cuts an exec command, its stdin and both outputs as the transcript does, keeping the rest', () => {
    expect(
      stepAsShown(
        'exec',
        { command: long('c'), stdin: long('i'), timeout_seconds: 60 },
        { exit_code: 1, stdout: long('o'), stderr: 'short', truncated: false, duration_ms: 12 },
      ),
    ).toEqual({
      request: { command: cut('c'), stdin: cut('i'), timeout_seconds: 60 },
      result: { exit_code: 1, stdout: cut('o'), stderr: 'short', truncated: false, duration_ms: 12 },
    });
  });

  it('keeps an argv whole, and a written file and a read file to their shown part', () => {
    expect(stepAsShown('exec', { command: ['python3', '-c', 'print(1)'] }, null).request.command).toEqual([
      'python3',
      '-c',
      'print(1)',
    ]);
    expect(stepAsShown('write', { path: 'a.py', content: long('w') }, { written: 5000 })).toEqual({
      request: { path: 'a.py', content: cut('w') },
      result: { written: 5000 },
    });
    expect(stepAsShown('read', { path: 'a.py' }, { type: 'file', content: long('r') }).result).toEqual({
      type: 'file',
      content: cut('r'),
    });
  });

  it('leaves listings and refusals as they are', () => {
    const listing = { type: 'dir', entries: [{ name: 'a.py', type: 'file', size: 3 }] };
    expect(stepAsShown('read', { path: '.' }, listing).result).toEqual(listing);
    const refused = { refused: { kind: 'not_found', detail: 'nope not found' } };
    expect(stepAsShown('read', { path: 'nope' }, refused).result).toEqual(refused);
  });
});
