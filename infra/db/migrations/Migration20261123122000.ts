import { Migration } from '@mikro-orm/migrations';

/**
 * A failed delivery's detail (which names the owner's host, port and resolved address) moves to
 * `error_detail`, for the owner; `error` keeps what the public may read. Recorded errors are split
 * by the forms the webhook client wrote them in.
 */
const PUBLIC_FORMS: Array<[pattern: string, replacement: string]> = [
  ['DNS lookup failed for \\S+$', "the webhook's host name could not be resolved"],
  ['connection refused by \\S+$', 'the webhook refused the connection'],
  ['timed out (after [0-9.]+ s )?connecting to \\S+$', 'the webhook timed out'],
  ['could not connect to \\S+ \\(.*\\)$', 'the webhook could not be reached'],
  [
    'connection to \\S+ closed before the response was complete$',
    'the connection to the webhook broke before its answer was complete',
  ],
  ['request to \\S+ failed \\(.*\\)$', 'the connection to the webhook broke before its answer was complete'],
  ['TLS handshake failed: .*$', "the webhook's TLS handshake failed"],
  [
    'refused: \\S+ resolves to a private address \\(.*\\)$',
    'the webhook resolves to an address the arena does not call',
  ],
  [
    'webhook_url points to a private or loopback address \\(.*\\)$',
    'the webhook resolves to an address the arena does not call',
  ],
];

export class Migration20261123122000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "sessions" add column "error_detail" text null;`);
    for (const [pattern, replacement] of PUBLIC_FORMS) {
      const p = pattern.replace(/'/g, "''");
      const r = replacement.replace(/'/g, "''");
      this.addSql(
        `update "sessions" set "error_detail" = coalesce("error_detail", "error"), "error" = regexp_replace("error", '${p}', '${r}') where "error" ~ '${p}';`,
      );
    }
  }

  override async down(): Promise<void> {
    this.addSql(`update "sessions" set "error" = "error_detail" where "error_detail" is not null;`);
    this.addSql(`alter table "sessions" drop column "error_detail";`);
  }
}
