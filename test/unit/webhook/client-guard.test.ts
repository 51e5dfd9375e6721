import dns from 'node:dns/promises';
import os from 'node:os';
import { isInwardAddress } from '../../../infra/webhook/address-guard';
import { useWebhookFixtures } from '../../webhook/support/client-fixture';
import { answerJson } from '../../webhook/support/loopback-server';

const { server, client, post } = useWebhookFixtures();

describe('WebhookClient URL and address guard', () => {
  it('refuses a literal loopback address before connecting', async () => {
    const hook = await server(answerJson(200, {}));
    const result = await post(client({ allowPrivate: false }), `${hook.url}/hook`);
    expect(result).toEqual({
      kind: 'failure',
      stage: 'private-address',
      neverSent: true,
      message: 'webhook_url points to a private or loopback address (127.0.0.1)',
    });
    expect(hook.requests).toHaveLength(0);
  });

  it('refuses the name localhost before connecting', async () => {
    const hook = await server(answerJson(200, {}));
    const result = await post(client({ allowPrivate: false }), `http://localhost:${hook.port}/hook`);
    expect(result).toEqual({
      kind: 'failure',
      stage: 'private-address',
      neverSent: true,
      message: 'webhook_url points to a loopback host (localhost)',
    });
    expect(hook.requests).toHaveLength(0);
  });

  it('refuses, at connect time, an ordinary host name whose DNS answer is inward', async () => {
    // The machine's own name is not "localhost" to the save-time check, yet resolves inward
    // (127.0.x.1 or a private container address), like a rebinding attacker's domain would.
    const name = os.hostname();
    const answers = await dns.lookup(name, { all: true });
    expect(answers.length > 0 && answers.every((a) => isInwardAddress(a.address))).toBe(true);
    const hook = await server(answerJson(200, { response: 'reached' }), answers[0]!.address);
    const url = `http://${name}:${hook.port}/hook`;

    const refused = await post(client({ allowPrivate: false }), url);
    expect(refused).toEqual({
      kind: 'failure',
      stage: 'private-address',
      neverSent: true,
      message: `refused: ${name.toLowerCase()} resolves to a private address (${answers[0]!.address})`,
    });
    expect(hook.requests).toHaveLength(0);

    // The same URL is reachable when private targets are allowed, so the refusal above was the guard.
    const allowed = await post(client({ allowPrivate: true }), url);
    expect(allowed).toMatchObject({ kind: 'response', status: 200 });
    expect(hook.requests).toHaveLength(1);
  });

  it.each([
    ['ftp://example.com/hook', 'webhook_url must use http or https'],
    ['http://user:pw@example.com/', 'webhook_url must not contain a user name or password'],
    ['::nonsense', 'webhook_url is not a valid URL'],
  ])('refuses an invalid URL %s without sending', async (url, message) => {
    expect(await post(client(), url)).toEqual({ kind: 'failure', stage: 'invalid-url', neverSent: true, message });
  });
});
