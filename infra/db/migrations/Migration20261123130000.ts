import { Migration } from '@mikro-orm/migrations';

/**
 * Candidate pairs for judging, made when an answer is recorded, and the time each main answer
 * leaves judging. Existing answers get their pairs here, by the rule new answers follow, with the
 * defaults of the time (4 pairs per answer, 3 votes per pair, 7 days of judging).
 */

/**
 * Pairs every answered pool session with at most 4 earlier answers to its prompt from other
 * owners, in id order (as if each were recorded now): among the 100 latest earlier answers,
 * closest Elo first, each pair the opponent already has counting as 100 points of distance.
 * Then `shown`/`votes` from the battles already held on each pair, and `judging_until`.
 */
export const BACKFILL_JUDGING_PAIRS: readonly string[] = [
  `do $$
  declare answer record;
  begin
    for answer in
      select s.id, s.prompt_id, s.agent_id, a.owner_id, a.elo
      from sessions s join agents a on a.id = s.agent_id join prompts p on p.id = s.prompt_id
      where s.kind = 'main' and s.status = 'answered' and p.source = 'pool'
        and length(trim(s.response)) > 0 and not a.deactivated
      order by s.id
    loop
      insert into arena_pairs (prompt_id, session_low_id, session_high_id, agent_low_id, agent_high_id, owner_low_id, owner_high_id)
      select answer.prompt_id, c.id, answer.id, c.agent_id, answer.agent_id, c.owner_id, answer.owner_id
      from (
        select t.id, t.agent_id, o.owner_id, o.elo
        from sessions t join agents o on o.id = t.agent_id
        where t.prompt_id = answer.prompt_id and t.kind = 'main' and t.status = 'answered' and t.id < answer.id
          and o.owner_id <> answer.owner_id and not o.deactivated and length(trim(t.response)) > 0
        order by t.id desc
        limit 100
      ) c
      order by abs(c.elo - answer.elo)
        + 100 * ((select count(*) from arena_pairs q where q.session_low_id = c.id)
               + (select count(*) from arena_pairs q where q.session_high_id = c.id)),
        c.id desc
      limit 4
      on conflict do nothing;
    end loop;
  end $$;`,
  `update arena_pairs p set shown = b.shown, votes = b.votes, open = b.shown < 3
   from (select pair_low, pair_high, count(*)::int as shown, (count(*) filter (where status = 'voted'))::int as votes
         from battles where not live and status in ('open', 'voted') group by pair_low, pair_high) b
   where b.pair_low = p.session_low_id and b.pair_high = p.session_high_id;`,
  `update sessions s set judging_until = case
     when exists (select 1 from battles b where b.live and b.status = 'voted' and s.id in (b.session_a_id, b.session_b_id))
       then null
     when exists (select 1 from arena_pairs p where s.id in (p.session_low_id, p.session_high_id))
       and not exists (select 1 from arena_pairs p where s.id in (p.session_low_id, p.session_high_id) and p.votes < 3)
       then null
     else s.created_at + interval '7 days' end
   where s.kind = 'main' and s.status = 'answered';`,
];

export class Migration20261123130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "arena_pairs" ("id" serial primary key, "prompt_id" int not null, "session_low_id" int not null, "session_high_id" int not null, "agent_low_id" int not null, "agent_high_id" int not null, "owner_low_id" int not null, "owner_high_id" int not null, "shown" int not null default 0, "votes" int not null default 0, "open" boolean not null default true, "created_at" timestamptz(6) not null default now(), constraint "arena_pairs_sessions_ordered" check ("session_low_id" < "session_high_id"));`,
    );
    this.addSql(
      `alter table "arena_pairs" add constraint "arena_pairs_sessions_unique" unique ("session_low_id", "session_high_id");`,
    );
    this.addSql(`create index "arena_pairs_open_index" on "arena_pairs" ("shown", "id") where "open";`);
    this.addSql(`create index "arena_pairs_session_low_id_index" on "arena_pairs" ("session_low_id");`);
    this.addSql(`create index "arena_pairs_session_high_id_index" on "arena_pairs" ("session_high_id");`);
    this.addSql(
      `alter table "arena_pairs" add constraint "arena_pairs_prompt_id_foreign" foreign key ("prompt_id") references "prompts" ("id") on update cascade;`,
    );
    this.addSql(
      `alter table "arena_pairs" add constraint "arena_pairs_session_low_id_foreign" foreign key ("session_low_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "arena_pairs" add constraint "arena_pairs_session_high_id_foreign" foreign key ("session_high_id") references "sessions" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "sessions" add column "judging_until" timestamptz(6) null;`);
    // Pairing scans a prompt's latest answers backwards by id.
    this.addSql(`drop index "sessions_main_answered_index";`);
    this.addSql(
      `create index "sessions_main_answered_index" on "sessions" ("prompt_id", "id") where "kind" = 'main' and "status" = 'answered';`,
    );

    for (const statement of BACKFILL_JUDGING_PAIRS) this.addSql(statement);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "sessions_main_answered_index";`);
    this.addSql(
      `create index "sessions_main_answered_index" on "sessions" ("prompt_id") where "kind" = 'main' and "status" = 'answered';`,
    );
    this.addSql(`alter table "sessions" drop column "judging_until";`);
    this.addSql(`drop table if exists "arena_pairs" cascade;`);
  }
}
