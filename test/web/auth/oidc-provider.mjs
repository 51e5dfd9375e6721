/**
 * A real OpenID Connect provider for the sign-in tests (oidc-provider, ES modules only, hence a
 * child process). Listens on a free loopback port and prints `ready <issuer>` when it serves.
 * Its development login screen accepts any login; the claims come from OIDC_ACCOUNTS
 * (`{"<login>": {"email": …, "email_verified": …}}`).
 */
import http from 'node:http';
import Provider from 'oidc-provider';

const { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URI, OIDC_ACCOUNTS } = process.env;
const accounts = JSON.parse(OIDC_ACCOUNTS ?? '{}');

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [OIDC_REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...(accounts[id] ?? {}) }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['only-for-tests'] },
    pkce: { required: () => true },
  });
  server.on('request', provider.callback());
  process.stdout.write(`ready ${issuer}\n`);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
