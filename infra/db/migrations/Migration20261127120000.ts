import { Migration } from '@mikro-orm/migrations';

/**
 * A leaderboard that cannot be bought (docs/decisions.md, "Votes weighed by trust"):
 *
 * - users: the network an account registered from (an IPv4 address, an IPv6 /64) and its
 *   registration cluster (accounts from one network, each within a day of the one before), both
 *   filled for existing accounts from `registration_ip`;
 * - judge_standings: operator trust, establishment, agreement and voids. The judges whose published
 *   votes the boards counted before this release are established, so an upgrade keeps the board
 *   it had (operators review them with `arena judges`, and void what they must);
 * - battles: the address a battle was handed to and the vote came from, the judge's cluster, the
 *   Elo weight the vote used, and whether an operator voided it;
 * - judge_exposures: battles handed out per agent, in all and per address and cluster;
 * - vote_flags and uncounted_votes replace judge_flags: every flagged group, and every published
 *   vote the boards leave out, with why (the old flags carried over until the next refresh);
 * - arena_pairs: `due_at`, the order judge/next hands pairs out in;
 * - rating_changes: `kind`, so a voided vote's reversal sits in the history beside the vote.
 */
/** Each account's registration network, from the address it registered from (as `api/client-address.ts` counts it). */
export const FILL_REGISTRATION_NETWORKS = `update users set registration_network = case
    when registration_ip ~* '^::ffff:[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$' then substr(registration_ip, 8)
    when registration_ip ~ '^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$' then registration_ip
    when registration_ip ~ '^[0-9a-fA-F:]+$' then host(network(set_masklen(registration_ip::inet, 64)))
    else null end
  where registration_ip is not null`;

/** Runs of accounts from one network, each within a day of the one before, are clusters; the rest are their own. */
export const FILL_REGISTRATION_CLUSTERS = [
  `with ordered as (
    select id, registration_network as network, created_at,
      case when lag(created_at) over w is null or created_at - lag(created_at) over w > interval '1 day' then 1 else 0 end as starts
    from users where registration_network is not null
    window w as (partition by registration_network order by created_at, id)),
  runs as (select id, network, sum(starts) over (partition by network order by created_at, id) as run from ordered),
  firsts as (select id, min(id) over (partition by network, run) as cluster from runs)
  update users u set registration_cluster = f.cluster from firsts f where f.id = u.id`,
  `update users set registration_cluster = id where registration_cluster is null`,
];

/** A pair is due when the first of its answers leaves judging (its creation, for answers out of it). */
export const FILL_PAIR_DUE_TIMES = `update arena_pairs p set due_at = coalesce(least(sl.judging_until, sh.judging_until), p.created_at)
  from sessions sl, sessions sh where sl.id = p.session_low_id and sh.id = p.session_high_id and p.due_at is null`;

export class Migration20261127120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "users" add column "registration_network" varchar(64) null, add column "registration_cluster" int null;`,
    );
    this.addSql(`create index "users_registration_network_index" on "users" ("registration_network", "created_at");`);
    this.addSql(FILL_REGISTRATION_NETWORKS);
    for (const statement of FILL_REGISTRATION_CLUSTERS) this.addSql(statement);

    this.addSql(
      `create table "judge_standings" ("judge_id" int not null, "trusted_at" timestamptz(6) null, "established_at" timestamptz(6) null, "compared_votes" int not null default 0, "agreement" double precision null, "voided_at" timestamptz(6) null, "void_reason" text null, constraint "judge_standings_pkey" primary key ("judge_id"));`,
    );
    this.addSql(
      `alter table "judge_standings" add constraint "judge_standings_judge_id_foreign" foreign key ("judge_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`insert into judge_standings (judge_id, established_at)
      select distinct b.judge_id, now() from public_votes v join battles b on b.id = v.battle_id
      where not exists (select 1 from judge_flags f where f.judge_id = b.judge_id);`);

    this.addSql(
      `alter table "battles" add column "judge_network" varchar(64) null, add column "judge_cluster" int null, add column "vote_network" varchar(64) null, add column "elo_weight" double precision null, add column "voided_at" timestamptz(6) null;`,
    );
    this.addSql(`create index "battles_vote_network_index" on "battles" ("vote_network", "voted_at");`);

    this.addSql(
      `create table "judge_exposures" ("agent_id" int not null, "source" varchar(80) not null, "battles" int not null, constraint "judge_exposures_pkey" primary key ("agent_id", "source"));`,
    );
    this.addSql(
      `alter table "judge_exposures" add constraint "judge_exposures_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`insert into judge_exposures (agent_id, source, battles)
      select agent_id, '', count(*) from (select agent_a_id as agent_id from battles union all select agent_b_id from battles) x
      group by agent_id;`);

    this.addSql(
      `create table "vote_flags" ("id" serial primary key, "kind" varchar(16) not null, "judge_id" int null, "cluster" int null, "network" varchar(64) null, "agent_id" int null, "direction" varchar(8) null, "votes" int not null, "p_value" double precision not null, "reason" text not null, "flagged_at" timestamptz(6) not null);`,
    );
    this.addSql(
      `alter table "vote_flags" add constraint "vote_flags_judge_id_foreign" foreign key ("judge_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `create table "uncounted_votes" ("battle_id" int not null, "reason" varchar(16) not null, constraint "uncounted_votes_pkey" primary key ("battle_id"));`,
    );
    this.addSql(
      `alter table "uncounted_votes" add constraint "uncounted_votes_battle_id_foreign" foreign key ("battle_id") references "battles" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`insert into vote_flags (kind, judge_id, votes, p_value, reason, flagged_at)
      select 'outlier', judge_id, votes, p_value, 'verdicts contradict the other judges'' on the same pairs far beyond chance', flagged_at
      from judge_flags;`);
    this.addSql(`insert into uncounted_votes (battle_id, reason)
      select v.battle_id, 'flagged' from public_votes v join battles b on b.id = v.battle_id
      join judge_flags f on f.judge_id = b.judge_id;`);
    this.addSql(`drop table if exists "judge_flags" cascade;`);

    this.addSql(`alter table "arena_pairs" add column "due_at" timestamptz(6) null;`);
    this.addSql(FILL_PAIR_DUE_TIMES);
    this.addSql(`alter table "arena_pairs" alter column "due_at" set not null;`);
    this.addSql(`drop index "arena_pairs_open_index";`);
    this.addSql(`create index "arena_pairs_open_index" on "arena_pairs" ("due_at", "id") where "open";`);

    this.addSql(`alter table "rating_changes" drop constraint "rating_changes_agent_battle_unique";`);
    this.addSql(`alter table "rating_changes" add column "kind" varchar(8) not null default 'vote';`);
    this.addSql(
      `alter table "rating_changes" add constraint "rating_changes_agent_battle_unique" unique ("agent_id", "battle_id", "kind");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from rating_changes where kind = 'void';`);
    this.addSql(`alter table "rating_changes" drop constraint "rating_changes_agent_battle_unique";`);
    this.addSql(`alter table "rating_changes" drop column "kind";`);
    this.addSql(
      `alter table "rating_changes" add constraint "rating_changes_agent_battle_unique" unique ("agent_id", "battle_id");`,
    );

    this.addSql(`drop index "arena_pairs_open_index";`);
    this.addSql(`create index "arena_pairs_open_index" on "arena_pairs" ("shown", "id") where "open";`);
    this.addSql(`alter table "arena_pairs" drop column "due_at";`);

    this.addSql(
      `create table "judge_flags" ("judge_id" int4 not null, "votes" int4 not null, "p_value" float8 not null, "flagged_at" timestamptz(6) not null, constraint "judge_flags_pkey" primary key ("judge_id"));`,
    );
    this.addSql(
      `alter table "judge_flags" add constraint "judge_flags_judge_id_foreign" foreign key ("judge_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`insert into judge_flags (judge_id, votes, p_value, flagged_at)
      select distinct on (judge_id) judge_id, votes, p_value, flagged_at from vote_flags where judge_id is not null
      order by judge_id, p_value;`);
    this.addSql(`drop table if exists "uncounted_votes" cascade;`);
    this.addSql(`drop table if exists "vote_flags" cascade;`);
    this.addSql(`drop table if exists "judge_exposures" cascade;`);

    this.addSql(`drop index "battles_vote_network_index";`);
    this.addSql(
      `alter table "battles" drop column "judge_network", drop column "judge_cluster", drop column "vote_network", drop column "elo_weight", drop column "voided_at";`,
    );

    this.addSql(`drop table if exists "judge_standings" cascade;`);

    this.addSql(`drop index "users_registration_network_index";`);
    this.addSql(`alter table "users" drop column "registration_network", drop column "registration_cluster";`);
  }
}
