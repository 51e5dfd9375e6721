/** A broken arena rule, as the use cases report it: what kind of refusal it is and a sentence a person can read. */

/**
 * invalid: the input breaks a rule; unauthenticated: the credentials are wrong; forbidden: the
 * caller may not do this; not_found: no such thing (or not the caller's); conflict: the thing's
 * state rules it out; rate_limited: a budget is spent; unavailable: a service it needs is down.
 */
export type ArenaErrorKind =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable';

export class ArenaError extends Error {
  constructor(
    readonly kind: ArenaErrorKind,
    /** A plain sentence, shown as is to the API client, the website visitor and the operator. */
    readonly detail: string,
    /** When trying again may succeed (rate_limited, unavailable). */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'ArenaError';
  }
}

/** `<what> not found`: the one wording for a missing thing (and for someone else's, which must look the same). */
export const notFound = (what: string) => new ArenaError('not_found', `${what} not found`);
