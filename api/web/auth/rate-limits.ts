/** Per-address limits for the website's sign-in forms, as route `config` for @fastify/rate-limit (registered with `global: false`). */
import { perAddress } from '../../plugins/rate-limits';

/** Log-in attempts per client address: slows password guessing without locking anyone's account. */
export function loginRateLimit(max: number) {
  return perAddress('login', max, '15 minutes');
}

/** Sign-ups per client address, the same abuse path as POST /api/register and the same budget. */
export function signUpRateLimit(max: number) {
  return perAddress('register', max, '1 hour');
}
