/** `arena-runner push` accepts each delivery once: a fresh timestamped signature, never seen before within the tolerance. */
import { DELIVERY_HEADER, TIMESTAMP_HEADER, TIMESTAMPED_SIGNATURE_HEADER, verifySignature } from './signing';

export const DEFAULT_TOLERANCE_SECONDS = 300;

type Headers = Record<string, string | string[] | undefined>;

/** Why a delivery is refused: 401 when it cannot be authenticated as fresh, 409 when it is a repeat. */
export interface Refusal {
  status: 401 | 409;
  detail: string;
}

export interface ReplayGuardOptions {
  secret: string;
  toleranceSeconds?: number;
  /** Unix seconds; tests move it. */
  now?: () => number;
}

export class ReplayGuard {
  readonly toleranceSeconds: number;
  private readonly secret: string;
  private readonly now: () => number;
  // Key -> unix second after which a repeat could no longer pass the timestamp check anyway.
  // Insertion order is roughly expiry order, so the oldest entries are swept from the front.
  private readonly seen = new Map<string, number>();

  constructor(opts: ReplayGuardOptions) {
    this.secret = opts.secret;
    this.toleranceSeconds = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** Entries still remembered; bounded by the deliveries accepted within twice the tolerance. */
  get remembered(): number {
    this.forgetExpired(this.now());
    return this.seen.size;
  }

  /**
   * Checks a delivery and, when it is accepted, remembers it, so the same request (or the same
   * delivery id) is refused until it would be too old to pass anyway. Returns undefined to accept.
   */
  admit(headers: Headers, body: Buffer): Refusal | undefined {
    const now = this.now();
    const refusal = this.freshSignature(headers, body, now);
    if (refusal) return refusal;

    this.forgetExpired(now);
    // X-Arena-Delivery is not covered by the signature, so the signature itself is remembered too:
    // a replay with another delivery id is still the same signed request.
    const keys = [`signature:${header(headers, TIMESTAMPED_SIGNATURE_HEADER)!.trim().toLowerCase()}`];
    const deliveryId = header(headers, DELIVERY_HEADER);
    if (deliveryId !== undefined) keys.push(`delivery:${deliveryId}`);
    if (keys.some((key) => (this.seen.get(key) ?? 0) > now)) {
      return { status: 409, detail: 'this delivery was already received; a replay is refused' };
    }
    // A timestamp ahead of this clock stays acceptable until it is `tolerance` seconds in the past.
    const expiresAt = Math.max(now, Number(header(headers, TIMESTAMP_HEADER))) + this.toleranceSeconds;
    for (const key of keys) {
      this.seen.delete(key);
      this.seen.set(key, expiresAt);
    }
    return undefined;
  }

  private freshSignature(headers: Headers, body: Buffer, now: number): Refusal | undefined {
    if (!verifySignature(this.secret, headers, body)) return { status: 401, detail: 'invalid signature' };
    const opts = { requireTimestamp: true, toleranceSeconds: this.toleranceSeconds, now };
    if (verifySignature(this.secret, headers, body, opts)) return undefined;

    // The check above is the authority; this only says which part failed, for the owner's log.
    const timestamp = header(headers, TIMESTAMP_HEADER)?.trim();
    if (
      timestamp === undefined ||
      !/^\d{1,12}$/.test(timestamp) ||
      header(headers, TIMESTAMPED_SIGNATURE_HEADER) === undefined
    ) {
      return {
        status: 401,
        detail: `missing timestamped signature: send ${TIMESTAMP_HEADER} and ${TIMESTAMPED_SIGNATURE_HEADER}`,
      };
    }
    if (Math.abs(now - Number(timestamp)) > this.toleranceSeconds) {
      return {
        status: 401,
        detail: `timestamp outside the ${this.toleranceSeconds} s tolerance: a replay, or this machine's clock is wrong`,
      };
    }
    return { status: 401, detail: 'invalid signature' };
  }

  private forgetExpired(now: number): void {
    for (const [key, expiresAt] of this.seen) {
      if (expiresAt > now) return;
      this.seen.delete(key);
    }
  }
}

// Any casing, as verifySignature reads them (Node lowercases, other callers may not).
function header(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
