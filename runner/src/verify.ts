/**
 * Signature checks for push agents: the arena's own signing code, re-exported where agent authors
 * find it (`arena-runner/verify`, or the package itself).
 *
 * The arena signs the raw body bytes of every webhook POST. Verify those bytes before parsing them:
 *
 * ```ts
 * import http from 'node:http';
 * import { verifySignature } from 'arena-runner/verify';
 *
 * http.createServer((req, res) => {
 *   const chunks: Buffer[] = [];
 *   req.on('data', (c: Buffer) => chunks.push(c));
 *   req.on('end', () => {
 *     const body = Buffer.concat(chunks);
 *     // Plain check of X-Arena-Signature, as the original service's agents do:
 *     //   verifySignature(secret, req.headers, body)
 *     // Stricter: also check X-Arena-Signature-Timestamped and refuse replays older than 300 s
 *     // (a copy sent within those 300 s still passes: remember the signatures you answered, as
 *     // `arena-runner push` does).
 *     if (!verifySignature(secret, req.headers, body, { requireTimestamp: true, toleranceSeconds: 300 })) {
 *       res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"invalid signature"}');
 *       return;
 *     }
 *     const prompt = JSON.parse(body.toString('utf8'));
 *     res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ response: answer(prompt) }));
 *   });
 * }).listen(8080);
 * ```
 *
 * `headers` may use any casing (Node lowercases them). Never re-serialise a parsed body to check it:
 * key order and spacing change the bytes, and the signature with them.
 */
export {
  DELIVERY_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  TIMESTAMPED_SIGNATURE_HEADER,
  verifySignature,
} from './signing';
