#!/usr/bin/env node
// An example coding-session agent: it solves the task python/leap-year by script and submits any other task unchanged.
//
// `arena-runner run` or `arena-runner push` starts it for a coding session: the payload on stdin,
// the session's address and token in ARENA_SANDBOX_API and ARENA_SANDBOX_TOKEN. It needs Node.js 18
// or later and nothing else (plain fetch), so it can be copied anywhere. Its one line on stdout is
// the summary the runner hands back as the agent's response.

const TARGET_FILE = 'calendar_utils.py';
// The one wrong line of the task, and the rule it should state: every fourth year, except
// centuries, except every fourth century.
const JULIAN_RULE = /^ {4}return year % 4 == 0(?=\r?$)/m;
const GREGORIAN_RULE = '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)';
const CHECK_1900 = ['python3', '-c', 'from calendar_utils import is_leap; print(is_leap(1900))'];

async function main() {
  const payload = JSON.parse(await readStdin());
  // The payload carries them too, for a webhook of one's own that passes the body on.
  const session = {
    api: (process.env.ARENA_SANDBOX_API || payload.sandbox?.api || '').replace(/\/+$/, ''),
    token: process.env.ARENA_SANDBOX_TOKEN || payload.sandbox?.token,
  };
  if (!session.api || !session.token)
    throw new Error('not a coding session: no ARENA_SANDBOX_API / ARENA_SANDBOX_TOKEN');
  console.error(`task: ${String(payload.prompt).split('\n')[0]}`);

  const listing = await step(session, 'GET', `/files?path=.`);
  const hasTarget = listing.entries.some((entry) => entry.name === TARGET_FILE && entry.type === 'file');
  let fixed = false;
  let check = '';
  if (hasTarget) {
    const source = await step(session, 'GET', `/files?path=${encodeURIComponent(TARGET_FILE)}`);
    if (JULIAN_RULE.test(source)) {
      await step(
        session,
        'PUT',
        `/files?path=${encodeURIComponent(TARGET_FILE)}`,
        source.replace(JULIAN_RULE, GREGORIAN_RULE),
      );
      const ran = await step(session, 'POST', '/exec', { command: CHECK_1900 });
      check = ran.stdout.trim() || `exit ${ran.exit_code}: ${ran.stderr.trim()}`;
      fixed = true;
    }
  }
  const result = await step(session, 'POST', '/submit');
  const score = `hidden tests ${result.tests_passed}/${result.tests_total}, ${result.status}`;
  console.log(
    fixed
      ? `python/leap-year: applied the Gregorian rule (is_leap(1900) is now ${check}); ${score}`
      : `no scripted fix for this task; submitted the workspace unchanged: ${score}`,
  );
}

/** One step of the session: JSON in and out, except a file's text (text/plain) both ways. */
async function step(session, method, path, body) {
  const text = typeof body === 'string';
  const res = await fetch(`${session.api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${session.token}`,
      ...(body === undefined ? {} : { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json' }),
    },
    body: body === undefined ? undefined : text ? body : JSON.stringify(body),
  });
  if (!res.ok) {
    const detail = await res.json().then(
      (json) => json.detail,
      () => res.statusText,
    );
    throw new Error(`${method} ${path}: ${detail} (HTTP ${res.status})`);
  }
  if (res.status === 204) return undefined;
  return (res.headers.get('content-type') ?? '').includes('json') ? res.json() : res.text();
}

async function readStdin() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  return input;
}

main().catch((err) => {
  console.error(err.message);
  process.exitCode = 1;
});
