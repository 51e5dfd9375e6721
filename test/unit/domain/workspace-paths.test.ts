import { ArenaError } from '../../../domain/errors';
import { MAX_WORKSPACE_PATH_CHARS, workspacePath } from '../../../domain/sandbox/paths';

function refusal(raw: string): string {
  try {
    workspacePath(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ArenaError);
    expect((err as ArenaError).kind).toBe('invalid');
    return (err as ArenaError).detail;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe('workspacePath', () => {
  it.each([
    ['src/app.py', 'src/app.py'],
    ['./src//app.py', 'src/app.py'],
    ['src/', 'src'],
    ['.hidden-tests/test_x.py', '.hidden-tests/test_x.py'],
    ['a..b/c...', 'a..b/c...'],
    ['', '.'],
    ['.', '.'],
    ['./', '.'],
    ['名前/ファイル.txt', '名前/ファイル.txt'],
  ])('accepts %j as %j', (raw, normalised) => expect(workspacePath(raw)).toBe(normalised));

  it.each(['/etc/passwd', '/', '//workspace/x'])('refuses the absolute path %j', (raw) =>
    expect(refusal(raw)).toBe('path must be relative to the workspace root'),
  );

  it.each(['..', '../x', 'src/../../x', 'src/..', 'a/./../b'])('refuses %j, which climbs out', (raw) =>
    expect(refusal(raw)).toBe('path must not contain a ".." segment'),
  );

  it('refuses a NUL and other control characters', () => {
    expect(refusal('a\0b')).toBe('path must not contain a NUL character');
    expect(refusal('a\nb')).toBe('path must not contain control characters');
  });

  it('caps the length of the path and of each name', () => {
    expect(workspacePath('a'.repeat(255))).toBe('a'.repeat(255));
    expect(refusal('a'.repeat(256))).toBe('each name in the path must be at most 255 bytes');
    expect(refusal('é'.repeat(128))).toBe('each name in the path must be at most 255 bytes');
    const long = Array.from({ length: 20 }, () => 'b'.repeat(60)).join('/');
    expect(long.length).toBeGreaterThan(MAX_WORKSPACE_PATH_CHARS);
    expect(refusal(long)).toBe(`path must be at most ${MAX_WORKSPACE_PATH_CHARS} characters`);
  });
});
