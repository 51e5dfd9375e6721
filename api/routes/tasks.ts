/** GET /api/tasks: the coding tasks a sandbox session or a benchmark run can be given. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { activeTasks } from '../../infra/db/repositories/coding-task.repository';
import { errors } from '../schemas/common';
import { taskListItem, tasksQuery } from '../schemas/coding';

/** The statement's first line of text: Markdown headings and blank lines are skipped, emphasis kept. */
export function statementSummary(statement: string): string {
  const line = statement.split(/\r?\n/).find((l) => l.trim() !== '' && !/^\s*#/.test(l));
  return (line ?? '').trim();
}

export const taskRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/tasks',
    {
      schema: {
        summary: 'The active coding tasks, by suite and id; no key needed',
        tags: ['sandbox'],
        querystring: tasksQuery,
        response: { 200: z.array(taskListItem), ...errors(400) },
      },
    },
    async (request) =>
      (await activeTasks(app.orm.em, request.query.suite)).map((task) => ({
        id: task.id,
        suite: task.suite as z.infer<typeof taskListItem>['suite'],
        language: task.language,
        title: task.title,
        summary: statementSummary(task.statement),
      })),
  );
};
