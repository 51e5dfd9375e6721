/**
 * The `sandbox` object a coding session's prompt carries: where its steps go (REST under `api`, MCP
 * tools at `mcp_url`) and the token that takes them either way.
 */
import { sessionToken } from '../credentials';
import { deliveryPublicId } from '../deliveries';

export interface SandboxPayload {
  session_id: string;
  api: string;
  /** The MCP endpoint (Streamable HTTP) serving the same steps as tools; the token says which session. */
  mcp_url: string;
  token: string;
  expires_at: string;
  max_steps: number;
}

export function sandboxPayload(
  session: { session_id: number; agent_id: number; token_nonce: string; expires_at: Date | string; max_steps: number },
  publicUrl: string,
  encryptionKey: Buffer,
): SandboxPayload {
  const id = deliveryPublicId('sandbox', session.session_id);
  return {
    session_id: id,
    api: `${publicUrl}/api/agents/${session.agent_id}/sandbox/${id}`,
    mcp_url: `${publicUrl}/mcp`,
    token: sessionToken(encryptionKey, session.session_id, session.token_nonce),
    expires_at: new Date(session.expires_at).toISOString(),
    max_steps: session.max_steps,
  };
}
