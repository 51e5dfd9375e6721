import { Migration } from '@mikro-orm/migrations';

/**
 * Votes, second round (docs/decisions.md, "A board a patient owner cannot buy"):
 * - battles.judged_as: the judge's standing when the vote was cast (`trusted`, `established`,
 *   `probation`, `voided`); only votes cast as trusted or established count. Earlier votes read it
 *   from the share of Elo's K they moved (1 only for an established judge).
 * - vote_holds and battles.hold_id: the votes of rule-established judges on one agent's pairs, held
 *   out of the boards until an operator releases or voids them.
 * - arena_pairs.trusted_shown: trusted judges a pair was handed to (judges in probation take only
 *   pairs a trusted judge has).
 * - judge_standings.contrary_agents: agents on which a judge in probation votes against the trusted
 *   judges beyond chance (it is not established while any is).
 */
export class Migration20261128120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "vote_holds" ("id" serial primary key, "agent_id" int not null, "direction" varchar(8) not null, "votes" int not null, "observed" double precision not null, "expected" double precision not null, "p_value" double precision not null, "reason" text not null, "held_at" timestamptz(6) not null, "decision" varchar(16) null, "decided_at" timestamptz(6) null, "decision_reason" text null);`,
    );
    this.addSql(
      `alter table "vote_holds" add constraint "vote_holds_agent_id_foreign" foreign key ("agent_id") references "agents" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "vote_holds_agent_id_index" on "vote_holds" ("agent_id");`);
    this.addSql(`alter table "battles" add column "judged_as" varchar(16) null, add column "hold_id" int null;`);
    this.addSql(
      `alter table "battles" add constraint "battles_hold_id_foreign" foreign key ("hold_id") references "vote_holds" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "battles_hold_id_index" on "battles" ("hold_id");`);
    this.addSql(`update battles b set judged_as = case
        when s.trusted_at is not null and s.trusted_at <= b.voted_at then 'trusted'
        when b.elo_weight = 1 then 'established'
        when b.elo_weight = 0 then 'voided'
        else 'probation' end
      from battles x left join judge_standings s on s.judge_id = x.judge_id
      where x.id = b.id and b.status = 'voted';`);
    this.addSql(`alter table "arena_pairs" add column "trusted_shown" int not null default 0;`);
    this.addSql(`update arena_pairs p set trusted_shown = t.n from (
        select b.pair_low, b.pair_high, count(*)::int as n from battles b
        join judge_standings s on s.judge_id = b.judge_id and s.trusted_at is not null
        where not b.live group by 1, 2) t
      where t.pair_low = p.session_low_id and t.pair_high = p.session_high_id;`);
    this.addSql(`alter table "judge_standings" add column "contrary_agents" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "judge_standings" drop column "contrary_agents";`);
    this.addSql(`alter table "arena_pairs" drop column "trusted_shown";`);
    this.addSql(`alter table "battles" drop constraint "battles_hold_id_foreign";`);
    this.addSql(`alter table "battles" drop column "judged_as", drop column "hold_id";`);
    this.addSql(`drop table if exists "vote_holds" cascade;`);
  }
}
