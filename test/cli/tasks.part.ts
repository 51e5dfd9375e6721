import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SANDBOX_TASKS_DIR, loadTaskCatalogue } from '../../infra/sandbox/task-catalogue';
import { useCliDatabase } from './cli-support';

const cli = useCliDatabase('arena-tasks-');
const { printed, errors, arena } = cli;
const active = async (id: string) =>
  (await cli.pg.query(`select active from coding_tasks where id = $1`, [id])).rows[0]?.active as boolean | undefined;

/** A copy of a shipped task under a new name, as an operator would write one. */
function copyTask(from: string, slug: string, change: (manifest: Record<string, unknown>) => void = () => undefined) {
  const [language, source] = from.split('/') as [string, string];
  const target = path.join(cli.dir, language, slug);
  fs.cpSync(path.join(DEFAULT_SANDBOX_TASKS_DIR, language, source), target, { recursive: true });
  const manifestFile = path.join(target, 'task.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  manifest.id = `${language}/${slug}`;
  change(manifest);
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  return target;
}

describe('arena tasks', () => {
  it('lists the shipped catalogue, which the migration loaded', async () => {
    expect(await arena('tasks', 'list')).toBe(0);
    const shipped = loadTaskCatalogue().map((t) => t.id);
    expect(printed[0]).toBe('id\tlanguage\tsessions\tpassed\ttitle');
    expect(printed.slice(1, -1).map((line) => line.split('\t')[0])).toEqual(shipped);
    expect(printed.at(-1)).toBe(`${shipped.length} active coding task(s)`);
  });

  it('adds a task folder once, with its hidden tests under .hidden-tests/ and no solution', async () => {
    const folder = copyTask('python/leap-year', 'leap-year-2');
    expect(await arena('tasks', 'add', folder)).toBe(0);
    expect(printed.at(-1)).toMatch(/^added python\/leap-year-2: /);
    const [row] = (await cli.pg.query(`select files, hidden_tests from coding_tasks where id = 'python/leap-year-2'`))
      .rows as Array<{ files: Array<{ path: string }>; hidden_tests: Array<{ path: string }> }>;
    expect(row!.files.map((f) => f.path)).toContain('calendar_utils.py');
    expect(row!.hidden_tests.every((f) => f.path.startsWith('.hidden-tests/'))).toBe(true);
    expect(JSON.stringify(row)).not.toContain('year % 400');

    expect(await arena('tasks', 'add', folder)).toBe(1);
    expect(errors.join('\n')).toContain(
      'a task python/leap-year-2 is already in the catalogue; a changed task needs a new folder name',
    );
  });

  it('refuses a folder that is not a task, naming the problem, and adds nothing', async () => {
    const broken = copyTask('python/leap-year', 'broken-task', (m) => {
      m.tests_total = 0;
    });
    const before = (await cli.pg.query(`select count(*)::int as n from coding_tasks`)).rows[0].n;
    expect(await arena('tasks', 'add', broken)).toBe(1);
    expect(errors.join('\n')).toMatch(
      /sandbox task python\/broken-task: task\.json: tests_total: .*; nothing was added/,
    );
    expect(await arena('tasks', 'add', path.join(cli.dir, 'nowhere'))).toBe(1);
    expect((await cli.pg.query(`select count(*)::int as n from coding_tasks`)).rows[0].n).toBe(before);
  });

  it('retires and reinstates tasks; an unknown id fails the command', async () => {
    expect(await arena('tasks', 'retire', 'python/leap-year')).toBe(0);
    expect(printed).toEqual(['retired python/leap-year']);
    expect(await active('python/leap-year')).toBe(false);
    printed.length = 0;
    expect(await arena('tasks', 'list', '--retired')).toBe(0);
    expect(printed.slice(1, -1).map((line) => line.split('\t')[0])).toEqual(['python/leap-year']);
    expect(await arena('tasks', 'reinstate', 'python/leap-year')).toBe(0);
    expect(await active('python/leap-year')).toBe(true);
    expect(await arena('tasks', 'retire', 'cobol/none')).toBe(1);
    expect(errors.join('\n')).toContain('no coding task with id: cobol/none');
  });
});
