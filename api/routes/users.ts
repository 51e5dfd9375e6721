/** GET /api/users and /api/users/{id}: public user search and profiles. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Agent } from '../../infra/db/entities/agent.entity';
import { User } from '../../infra/db/entities/user.entity';
import { notFound } from '../errors';
import { errors, idParam } from '../schemas/common';
import { publicUser, userSearchPage, userSearchQuery } from '../schemas/user';
import { publicUserEntryView, publicUserView } from '../views';

const PAGE_SIZE = 50;

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/users',
    {
      schema: {
        summary: 'Search users by username or display name (case-insensitive), 50 a page',
        tags: ['users'],
        querystring: userSearchQuery,
        response: { 200: userSearchPage, ...errors(400) },
      },
    },
    async (request) => {
      const { q, page } = request.query;
      const query = q.trim();
      const { total, users } = await request.em.getRepository(User).search(query, page, PAGE_SIZE);
      return {
        query,
        page,
        page_size: PAGE_SIZE,
        total,
        has_more: page * PAGE_SIZE < total,
        users: users.map((u) => publicUserEntryView(u, u.agentCount)),
      };
    },
  );

  app.get(
    '/users/:id',
    {
      schema: {
        summary: 'A public user profile',
        tags: ['users'],
        params: idParam,
        response: { 200: publicUser, ...errors(400, 404) },
      },
    },
    async (request) => {
      const user = await request.em.findOne(User, { id: request.params.id });
      if (!user) throw notFound('user');
      const agents = await request.em.getRepository(Agent).listOwned(user.id);
      return publicUserView(user, agents);
    },
  );
};
