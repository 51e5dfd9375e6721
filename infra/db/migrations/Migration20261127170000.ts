import { Migration } from '@mikro-orm/migrations';

/**
 * A coding session's time in the feed is the session's own, from its start to its end: ended
 * sessions recorded before had none (a pulled session was never "sent") and read 0 ms.
 */
export const CODING_SESSION_TIMES = `update sessions s set latency_ms = (extract(epoch from s.completed_at - s.created_at) * 1000)::int
  from coding_sessions c
  where c.session_id = s.id and s.completed_at is not null and (s.latency_ms is null or s.latency_ms = 0)`;

export class Migration20261127170000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(CODING_SESSION_TIMES);
  }
}
