import { checkWebhookUrl, isInwardAddress } from '../../../infra/webhook/address-guard';

describe('checkWebhookUrl without private targets', () => {
  const refused: Array<[string, RegExp]> = [
    ['http://127.0.0.1/hook', /private or loopback address \(127\.0\.0\.1\)/],
    ['http://localhost:8080/hook', /loopback host \(localhost\)/],
    ['http://LOCALHOST./hook', /loopback host/],
    ['https://sub.localhost/hook', /loopback host \(sub\.localhost\)/],
    ['http://0.0.0.0/', /\(0\.0\.0\.0\)/],
    ['http://0/', /\(0\.0\.0\.0\)/],
    ['http://[::1]/', /\(::1\)/],
    ['http://[::]/', /\(::\)/],
    ['http://[::ffff:127.0.0.1]/', /\(::ffff:7f00:1\)/],
    ['http://[::ffff:7f00:1]/', /private or loopback/],
    ['http://[::ffff:10.0.0.1]/', /private or loopback/],
    ['http://[64:ff9b::7f00:1]/', /private or loopback/],
    ['http://[64:ff9b::a9fe:a9fe]/', /private or loopback/],
    ['http://2130706433/', /\(127\.0\.0\.1\)/],
    ['http://0x7f000001/', /\(127\.0\.0\.1\)/],
    ['http://127.1/', /\(127\.0\.0\.1\)/],
    ['http://017700000001/', /\(127\.0\.0\.1\)/],
    ['http://0177.0.0.1/', /\(127\.0\.0\.1\)/],
    ['http://127.255.255.254:9/', /private or loopback/],
    ['http://10.1.2.3/', /\(10\.1\.2\.3\)/],
    ['http://172.16.0.1/', /\(172\.16\.0\.1\)/],
    ['http://172.31.255.255/', /\(172\.31\.255\.255\)/],
    ['http://192.168.1.1/', /\(192\.168\.1\.1\)/],
    ['http://169.254.169.254/latest/meta-data/', /\(169\.254\.169\.254\)/],
    ['http://100.64.0.1/', /\(100\.64\.0\.1\)/],
    ['http://192.0.0.8/', /private or loopback/],
    ['http://198.18.0.1/', /private or loopback/],
    ['http://224.0.0.1/', /private or loopback/],
    ['http://240.0.0.1/', /private or loopback/],
    ['http://255.255.255.255/', /private or loopback/],
    ['http://[fc00::1]/', /\(fc00::1\)/],
    ['http://[fd12::1]/', /\(fd12::1\)/],
    ['http://[fe80::1]/', /\(fe80::1\)/],
    ['http://[ff02::1]/', /private or loopback/],
    ['ftp://example.com/hook', /must use http or https/],
    ['file:///etc/passwd', /must use http or https/],
    ['javascript:alert(1)', /must use http or https/],
    ['http://user:pass@example.com/hook', /must not contain a user name or password/],
    ['https://token@example.com/hook', /must not contain a user name or password/],
    ['not a url', /not a valid URL/],
    ['http://', /not a valid URL/],
    ['', /not a valid URL/],
  ];

  it.each(refused)('refuses %s', (raw, reason) => {
    const checked = checkWebhookUrl(raw, { allowPrivate: false });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
    if (!checked.ok) expect(checked.reason).toMatch(/^webhook_url /);
  });

  const accepted: Array<[string, string]> = [
    ['http://93.184.216.34/hook', '93.184.216.34'],
    ['https://[2606:4700::1111]/hook', '[2606:4700::1111]'],
    ['https://example.com/hook?x=1', 'example.com'],
    ['https://agents.example.org:8443/arena', 'agents.example.org'],
    ['http://172.32.0.1/', '172.32.0.1'],
    ['http://100.128.0.1/', '100.128.0.1'],
    ['http://localhost.example.com/', 'localhost.example.com'],
  ];

  it.each(accepted)('accepts %s', (raw, hostname) => {
    const checked = checkWebhookUrl(raw, { allowPrivate: false });
    expect(checked).toEqual({ ok: true, url: new URL(raw) });
    if (checked.ok) expect(checked.url.hostname).toBe(hostname);
  });
});

describe('checkWebhookUrl with private targets allowed', () => {
  it.each(['http://127.0.0.1:4567/hook', 'http://localhost:3000/', 'http://[::1]/', 'http://10.0.0.5/'])(
    'accepts %s',
    (raw) => {
      expect(checkWebhookUrl(raw, { allowPrivate: true }).ok).toBe(true);
    },
  );

  it.each([
    ['ftp://127.0.0.1/', /must use http or https/],
    ['http://a:b@localhost/', /user name or password/],
    ['::::', /not a valid URL/],
  ])('still refuses %s', (raw, reason) => {
    const checked = checkWebhookUrl(raw, { allowPrivate: true });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });
});

describe('isInwardAddress', () => {
  it.each([
    '127.0.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '10.255.255.255',
    '100.127.255.255',
    '169.254.0.1',
    '172.16.0.0',
    '192.0.0.170',
    '192.168.255.255',
    '198.19.255.255',
    '224.0.0.251',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fc00::',
    'fdff:ffff::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::fb',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::1',
    '2002:c0a8:0101::1',
    'not-an-ip',
    '',
  ])('%s is inward', (ip) => {
    expect(isInwardAddress(ip)).toBe(true);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.167.255.255',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    'fbff::1',
  ])('%s is outward', (ip) => {
    expect(isInwardAddress(ip)).toBe(false);
  });
});
