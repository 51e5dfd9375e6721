/** Names what went wrong on an outbound webhook call, in words an agent owner can act on. */
import { PRIVATE_ADDRESS_CODE } from './guarded-lookup';

export type WebhookFailureStage =
  'invalid-url' | 'private-address' | 'dns' | 'refused' | 'tls' | 'connect' | 'timeout' | 'too-large' | 'network';

export interface FailureCause {
  stage: WebhookFailureStage;
  message: string;
}

/** Where the request was going, as the owner wrote it (host:port), for messages. */
export interface Target {
  hostname: string;
  address: string;
  https: boolean;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
const RESPONSE_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CLOSED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_|HOSTNAME_MISMATCH)/;

type ErrorWithCode = Error & { code?: string; reason?: string; errors?: unknown[] };

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(2))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(2))} KiB`;
  return `${bytes} bytes`;
}

// Racing IPv4 and IPv6 (autoSelectFamily) fails with an AggregateError; its first cause names it.
function codeOf(err: ErrorWithCode): string | undefined {
  if (err.code) return err.code;
  const first = err.errors?.[0] as ErrorWithCode | undefined;
  return first?.code;
}

function firstLine(text: string): string {
  const [first = ''] = text.split('\n');
  return first.trim();
}

function tlsDetail(err: ErrorWithCode): string {
  // OpenSSL messages carry a library path; its short `reason` is the readable part.
  const detail = err.reason ?? firstLine(err.message);
  if (/wrong version number|packet length too long|http request/i.test(detail)) {
    return `${detail} (is the server speaking plain HTTP?)`;
  }
  return detail;
}

/** A failure before the request was handed to a connected socket: nothing left the service. */
export function describeConnectFailure(err: ErrorWithCode, target: Target, connectTimeoutMs: number): FailureCause {
  const code = codeOf(err);
  if (code === PRIVATE_ADDRESS_CODE) return { stage: 'private-address', message: err.message };
  if (code && DNS_CODES.has(code)) return { stage: 'dns', message: `DNS lookup failed for ${target.hostname}` };
  if (code === 'ECONNREFUSED') return { stage: 'refused', message: `connection refused by ${target.address}` };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return {
      stage: 'timeout',
      message: `timed out after ${formatSeconds(connectTimeoutMs)} connecting to ${target.address}`,
    };
  }
  if (code === 'ETIMEDOUT') return { stage: 'timeout', message: `timed out connecting to ${target.address}` };
  if (target.https && (TLS_CODE.test(code ?? '') || err.reason !== undefined)) {
    return { stage: 'tls', message: `TLS handshake failed: ${tlsDetail(err)}` };
  }
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
    return { stage: 'network', message: 'webhook client is closed' };
  }
  if (code === 'UND_ERR_INVALID_ARG')
    return { stage: 'network', message: `request not sent: ${firstLine(err.message)}` };
  return { stage: 'connect', message: `could not connect to ${target.address} (${code ?? firstLine(err.message)})` };
}

/** A failure after the request went out: the agent may have received it. */
export function describeExchangeFailure(err: ErrorWithCode, target: Target, timeoutMs: number): FailureCause {
  const code = codeOf(err) ?? '';
  if (RESPONSE_TIMEOUT_CODES.has(code))
    return { stage: 'timeout', message: `timed out after ${formatSeconds(timeoutMs)}` };
  if (CLOSED_CODES.has(code)) {
    return { stage: 'network', message: `connection to ${target.address} closed before the response was complete` };
  }
  if (code.startsWith('HPE_')) return { stage: 'network', message: `webhook sent an invalid HTTP response (${code})` };
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return { stage: 'network', message: 'webhook response body did not match its Content-Length' };
  }
  return { stage: 'network', message: `request to ${target.address} failed (${code || firstLine(err.message)})` };
}

/**
 * What the public feed says of a failure: its class only. The detail names the owner's host, port
 * and the address a name resolved to, which is the owner's business alone. `to` names what was
 * called: the webhook, or an A2A agent's endpoint.
 */
export function publicFailureMessage(stage: WebhookFailureStage, to = 'webhook'): string {
  switch (stage) {
    case 'invalid-url':
      return `the ${to} URL is not valid`;
    case 'private-address':
      return `the ${to} resolves to an address the arena does not call`;
    case 'dns':
      return `the ${to}'s host name could not be resolved`;
    case 'refused':
      return `the ${to} refused the connection`;
    case 'tls':
      return `the ${to}'s TLS handshake failed`;
    case 'connect':
      return `the ${to} could not be reached`;
    case 'timeout':
      return `the ${to} timed out`;
    case 'too-large':
      return `the ${to}'s answer was too large`;
    case 'network':
      return `the connection to the ${to} broke before its answer was complete`;
  }
}
