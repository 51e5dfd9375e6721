/** Security headers on every response (pages, API and docs alike): a strict Content-Security-Policy, no framing, no sniffing, HSTS behind https. */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sets the security headers on a response Fastify does not answer (a long-poll), or on a route with `helmet: false`. */
    setSecurityHeaders(res: ServerResponse): void;
  }
}

export interface SecurityHeadersOptions {
  publicUrl: string;
  /** Inline `<style>` blocks the server writes itself, allowed by their hash and nothing else inline. */
  inlineStyles?: readonly string[];
  /** The identity provider's address, when there is one: a sign-in form may lead there. */
  identityProvider?: string;
}

const YEAR_SECONDS = 365 * 24 * 60 * 60;

const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;

function helmetOptions({ publicUrl, inlineStyles = [], identityProvider }: SecurityHeadersOptions): HelmetOptions {
  const https = new URL(publicUrl).protocol === 'https:';
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        // Scripts only from files this server serves: no inline scripts, no handlers in attributes, no eval.
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", ...inlineStyles.map(styleHash)],
        // The API reference's stylesheet draws its icons as data: images.
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'", ...(identityProvider ? [new URL(identityProvider).origin] : [])],
        // Nobody may frame a page: a framed /account could be clicked through by another site.
        frameAncestors: ["'none'"],
        // Over plain http (development) this would send the browser to an https nobody serves.
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Only the arena's own host: its subdomains may be other people's services.
    hsts: https ? { maxAge: YEAR_SECONDS, includeSubDomains: false } : false,
  };
}

export const securityHeadersPlugin = fp<SecurityHeadersOptions>(
  async (app: FastifyInstance, options) => {
    const config = helmetOptions(options);
    await app.register(fastifyHelmet, config);
    // The same headers, from the library @fastify/helmet wraps, for responses set outside its hook.
    const setHeaders = helmet(config);
    app.decorate('setSecurityHeaders', (res: ServerResponse) => setHeaders(res.req, res, () => undefined));
  },
  { name: 'security-headers' },
);
