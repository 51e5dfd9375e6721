/** A small JSON client for the arena API: accounts, agents and sandbox tasks, over a pool of kept-alive connections. */
import { Pool } from 'undici';

export interface ApiClientOptions {
  connections?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

export interface SandboxSession {
  id: string;
  status: string;
}

export class ApiClient {
  private readonly pool: Pool;

  constructor(
    readonly baseUrl: string,
    opts: ApiClientOptions = {},
  ) {
    // pipelining 1: one request per connection at a time, as a browser or SDK would send them.
    this.pool = new Pool(baseUrl, { connections: opts.connections ?? 16, pipelining: 1, keepAliveTimeout: 30_000 });
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.pool.request({
      method,
      path,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new ApiError(res.statusCode, text);
    return { status: res.statusCode, body: (text ? JSON.parse(text) : null) as T };
  }

  async register(): Promise<{ apiKey: string; userId: number }> {
    const { body } = await this.request<{ api_key: string; user_id: number }>('POST', '/api/register');
    return { apiKey: body.api_key, userId: body.user_id };
  }

  async createPushAgent(
    key: string,
    name: string,
    webhookUrl: string,
  ): Promise<{ id: number; active: boolean; pingError: string | null }> {
    const { body } = await this.request<{ id: number; active: boolean; ping_error: string | null }>(
      'POST',
      '/api/agents',
      {
        key,
        body: { name, webhook_url: webhookUrl },
      },
    );
    return { id: body.id, active: body.active, pingError: body.ping_error };
  }

  async sandbox(key: string, agentId: number, prompt: string, deadlineSeconds: number): Promise<SandboxSession> {
    const { body } = await this.request<SandboxSession>('POST', `/api/agents/${agentId}/sandbox`, {
      key,
      body: { prompt, deadline_seconds: deadlineSeconds },
    });
    return body;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** `sandbox-42` -> 42 */
export function sessionNumber(publicId: string): number {
  const n = Number(publicId.slice(publicId.lastIndexOf('-') + 1));
  if (!Number.isInteger(n)) throw new Error(`not a session id: ${publicId}`);
  return n;
}
