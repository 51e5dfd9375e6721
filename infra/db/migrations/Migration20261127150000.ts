import { Migration } from '@mikro-orm/migrations';

/** The reason a run is shown with when a harness's own words were its reason before. */
const MACHINERY = 'the code under test changed the test machinery while the hidden tests ran';

/**
 * Earlier reasons (a harness's words, which could quote names the code under test chose) move to the
 * detail, and the feed (the session's error, and the transcript's note) shows the arena's general
 * sentence for them instead; the arena's own reasons stay.
 */
export const MOVE_TAMPER_REASONS = [
  `update coding_sessions set tamper_detail = tampered, tampered = '${MACHINERY}'
   where tampered is not null and tamper_detail is null
     and tampered not in ('the harness was made to report more than once', 'a test was reported twice')`,
  `update sessions s set error = 'tampered with: ' || c.tampered,
     response = regexp_replace(s.response, '\\*\\*Tampered with\\*\\*: .*?\\. The run scores 0\\.',
       '**Tampered with**: ' || c.tampered || '. The run scores 0.')
   from coding_sessions c where c.session_id = s.id and c.tamper_detail is not null`,
];

/**
 * What the judge saw of a run it found tampered with, kept for operators (`arena coding tampered`)
 * beside the public reason, which from now on is always one of the arena's own sentences.
 */
export class Migration20261127150000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "coding_sessions" add column "tamper_detail" text null;`);
    for (const statement of MOVE_TAMPER_REASONS) this.addSql(statement);
  }

  override async down(): Promise<void> {
    this.addSql(`update coding_sessions set tampered = tamper_detail where tamper_detail is not null;`);
    this.addSql(`alter table "coding_sessions" drop column "tamper_detail";`);
  }
}
