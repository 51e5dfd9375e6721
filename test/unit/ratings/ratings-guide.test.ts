/** docs/guides/ratings.md stays true: its worked example is what the CLI prints, and its script is the one the tests run. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const guide = fs.readFileSync(path.join(ROOT, 'docs', 'guides', 'ratings.md'), 'utf8');
const block = (language: string) => {
  const found = guide.match(new RegExp('```' + language + '\\n([\\s\\S]*?)```'));
  if (!found) throw new Error(`the guide has no ${language} block`);
  return found[1]!;
};

describe('the ratings guide', () => {
  it('shows the whole script, as kept in the repository', () => {
    expect(block('python')).toBe(fs.readFileSync(path.join(ROOT, 'examples', 'ratings', 'refit.py'), 'utf8'));
  });

  it("prints its worked example's board as arena leaderboard fit prints it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-guide-'));
    try {
      const file = path.join(dir, 'votes.ndjson');
      fs.writeFileSync(file, block('json'));
      expect(block('json').trim().split('\n')).toHaveLength(10);
      const printed: string[] = [];
      expect(
        await main(['leaderboard', 'fit', '--votes', file, '--min-votes', '5'], (line) => printed.push(line)),
      ).toBe(0);
      expect(printed.join('\n') + '\n').toBe(block('text'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
