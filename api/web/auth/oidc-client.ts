/**
 * The relying-party side of OpenID Connect, kept to this file: openid-client v6 is published as
 * ES modules only, and the service is CommonJS, so it is loaded with a real `import()`.
 */
import { pathToFileURL } from 'node:url';
import type { Configuration } from 'openid-client';
import type { OidcSettings } from '../../../infra/config';
import type { ProviderIdentity } from '../../../services/identities';

export type OpenidClient = typeof import('openid-client');
export type OpenidClientLoader = () => Promise<OpenidClient>;

/*
 * Built from a string so that no compiler (tsc, tsx, swc) rewrites it into `require()`, which
 * cannot load ES modules before Node 20.19. Jest's CommonJS runtime cannot run a native
 * `import()` at all (it needs --experimental-vm-modules), so the tests pass their own loader.
 */
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

/** Resolved to a file URL first, so the import does not depend on the process's working directory. */
export const loadOpenidClient: OpenidClientLoader = () =>
  nativeImport(pathToFileURL(require.resolve('openid-client')).href) as Promise<OpenidClient>;

/** What one sign-in must remember between leaving for the provider and coming back. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export type { ProviderIdentity };

export class OidcRelyingParty {
  private configuration?: Promise<Configuration>;
  private client?: Promise<OpenidClient>;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redirectUri: string,
    private readonly load: OpenidClientLoader = loadOpenidClient,
  ) {}

  /** The provider's authorization URL for a new sign-in (code flow with PKCE, state and nonce), and what to remember. */
  async begin(): Promise<{ url: string; pending: PendingSignIn }> {
    const [client, config] = await Promise.all([this.openidClient(), this.discovered()]);
    const pending = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** Checks the callback (state, PKCE, ID token and nonce), redeems the code and reads who signed in. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<ProviderIdentity> {
    const [client, config] = await Promise.all([this.openidClient(), this.discovered()]);
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    let email: unknown = claims.email;
    let verified: unknown = claims.email_verified;
    if (typeof email !== 'string') {
      // Many providers put email only in the UserInfo response.
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = info.email;
      verified = info.email_verified;
    }
    return {
      provider: config.serverMetadata().issuer,
      subject: claims.sub,
      email: typeof email === 'string' ? email : null,
      // Some providers send the flag as a string.
      emailVerified: verified === true || verified === 'true',
    };
  }

  private openidClient(): Promise<OpenidClient> {
    this.client ??= this.load().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  /** Discovery runs once and is kept; a failure is not kept, so the next sign-in tries again. */
  private discovered(): Promise<Configuration> {
    this.configuration ??= this.openidClient()
      .then((client) =>
        client.discovery(
          new URL(this.settings.issuer),
          this.settings.clientId,
          undefined,
          client.ClientSecretBasic(this.settings.clientSecret),
          {
            // Plain http is only accepted by the configuration for a provider on localhost (development, tests).
            execute: this.settings.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [],
          },
        ),
      )
      .catch((err: unknown) => {
        this.configuration = undefined;
        throw new ProviderUnavailableError(err);
      });
    return this.configuration;
  }
}

export class ProviderUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the identity provider could not be reached', { cause });
  }
}
