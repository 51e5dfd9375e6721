/** GET /api/users and /api/users/{id}: public user search and profiles. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../../domain/errors';
import { agentsOf } from '../../services/agents';
import { findUser, searchUsers } from '../../services/profiles';
import { errors, idParam } from '../schemas/common';
import { publicUser, userSearchPage, userSearchQuery } from '../schemas/user';
import { publicUserEntryJson, publicUserJson } from '../json/accounts';

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
      const { total, users } = await searchUsers(request.em, query, page, PAGE_SIZE);
      return {
        query,
        page,
        page_size: PAGE_SIZE,
        total,
        has_more: page * PAGE_SIZE < total,
        users: users.map((u) => publicUserEntryJson(u, u.agentCount)),
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
      const user = await findUser(request.em, request.params.id);
      if (!user) throw notFound('user');
      const agents = await agentsOf(request.em, user.id);
      return publicUserJson(user, agents);
    },
  );
};
