/**
 * The counted votes as columns of numbers rather than a million objects: what a refresh gathers,
 * page by page, and what the fit threads share. Built in any order, read in battle order.
 */
import { VERDICTS } from '../domain/arena';
import type { BoardVote } from '../domain/ratings/boards';
import { STYLE_FEATURES } from '../domain/ratings/style';

export interface VoteColumns {
  count: number;
  a: Int32Array;
  b: Int32Array;
  /** An index into VERDICTS. */
  outcome: Uint8Array;
  /** An index into `categories`. */
  category: Uint16Array;
  categories: string[];
  /** `featureCount` per vote, in STYLE_FEATURES order. */
  features: Float64Array;
  featureCount: number;
}

/** A typed array over memory the fit threads can read without a copy. */
function shared<T>(Type: { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
  return new Type(new SharedArrayBuffer(Math.max(1, length) * Type.BYTES_PER_ELEMENT));
}

export class VoteColumnsBuilder {
  private count = 0;
  private capacity = 1024;
  private battle = new Float64Array(this.capacity);
  private a = new Int32Array(this.capacity);
  private b = new Int32Array(this.capacity);
  private outcome = new Uint8Array(this.capacity);
  private category = new Uint16Array(this.capacity);
  private features = new Float64Array(this.capacity * STYLE_FEATURES.length);
  private readonly categories: string[] = [];
  private readonly categoryIndex = new Map<string, number>();

  add(battleId: number, vote: BoardVote): void {
    const width = STYLE_FEATURES.length;
    if (vote.features.length !== width)
      throw new RangeError(`every vote needs ${width} style features; one has ${vote.features.length}`);
    if (this.count === this.capacity) this.grow();
    let category = this.categoryIndex.get(vote.category);
    if (category === undefined) {
      category = this.categories.push(vote.category) - 1;
      this.categoryIndex.set(vote.category, category);
    }
    const k = this.count++;
    this.battle[k] = battleId;
    this.a[k] = vote.a;
    this.b[k] = vote.b;
    this.outcome[k] = VERDICTS.indexOf(vote.outcome);
    this.category[k] = category;
    this.features.set(vote.features, k * width);
  }

  /** The votes by battle id (the order the export lists them in), in shared memory. */
  build(): VoteColumns {
    const { count } = this;
    const width = STYLE_FEATURES.length;
    const order = Int32Array.from({ length: count }, (_, k) => k);
    order.sort((x, y) => this.battle[x]! - this.battle[y]!);
    const columns: VoteColumns = {
      count,
      a: shared(Int32Array, count),
      b: shared(Int32Array, count),
      outcome: shared(Uint8Array, count),
      category: shared(Uint16Array, count),
      categories: [...this.categories],
      features: shared(Float64Array, count * width),
      featureCount: width,
    };
    order.forEach((from, to) => {
      columns.a[to] = this.a[from]!;
      columns.b[to] = this.b[from]!;
      columns.outcome[to] = this.outcome[from]!;
      columns.category[to] = this.category[from]!;
      columns.features.set(this.features.subarray(from * width, (from + 1) * width), to * width);
    });
    return columns;
  }

  private grow(): void {
    this.capacity *= 2;
    const wider = <T extends Float64Array | Int32Array | Uint8Array | Uint16Array>(old: T, width = 1): T => {
      const next = new (old.constructor as new (length: number) => T)(this.capacity * width);
      next.set(old as never);
      return next;
    };
    this.battle = wider(this.battle);
    this.a = wider(this.a);
    this.b = wider(this.b);
    this.outcome = wider(this.outcome);
    this.category = wider(this.category);
    this.features = wider(this.features, STYLE_FEATURES.length);
  }
}

/** Votes already in hand (the tests), as columns in the order given. */
export function voteColumns(votes: readonly BoardVote[]): VoteColumns {
  const builder = new VoteColumnsBuilder();
  votes.forEach((vote, k) => builder.add(k, vote));
  return builder.build();
}

/**
 * A vote read from the columns when asked: an object of two fields rather than five with a view of
 * its features, so that a thread fitting the overall board of a million votes holds about 40 MB
 * of them rather than about 200 (bench/README.md, "Every board in seconds").
 */
class ColumnVote implements BoardVote {
  constructor(
    private readonly columns: VoteColumns,
    private readonly k: number,
  ) {}

  get a(): number {
    return this.columns.a[this.k]!;
  }

  get b(): number {
    return this.columns.b[this.k]!;
  }

  get outcome(): BoardVote['outcome'] {
    return VERDICTS[this.columns.outcome[this.k]!]!;
  }

  get category(): string {
    return this.columns.categories[this.columns.category[this.k]!]!;
  }

  get features(): Float64Array {
    const width = this.columns.featureCount;
    return this.columns.features.subarray(this.k * width, (this.k + 1) * width);
  }
}

/** One board's votes as the fit reads them: every vote for the overall board (`category` undefined), else that category's. */
export function boardVotesOf(columns: VoteColumns, category?: string): BoardVote[] {
  const wanted = category === undefined ? -1 : columns.categories.indexOf(category);
  const votes: BoardVote[] = [];
  if (category !== undefined && wanted < 0) return votes;
  for (let k = 0; k < columns.count; k++) {
    if (wanted >= 0 && columns.category[k] !== wanted) continue;
    votes.push(new ColumnVote(columns, k));
  }
  return votes;
}

/**
 * The votes with each agent replaced by its player (a claim's number, `claimPlayers`), in the
 * same order; a vote with a side that has no player is left out. Two agents of one claim meet as
 * a player against itself, which the fit leaves out as it does a self-battle.
 */
export function playerColumns(columns: VoteColumns, players: ReadonlyMap<number, number>): VoteColumns {
  const keep: number[] = [];
  for (let k = 0; k < columns.count; k++) if (players.has(columns.a[k]!) && players.has(columns.b[k]!)) keep.push(k);
  const width = columns.featureCount;
  const out: VoteColumns = {
    count: keep.length,
    a: shared(Int32Array, keep.length),
    b: shared(Int32Array, keep.length),
    outcome: shared(Uint8Array, keep.length),
    category: shared(Uint16Array, keep.length),
    categories: [...columns.categories],
    features: shared(Float64Array, keep.length * width),
    featureCount: width,
  };
  keep.forEach((from, to) => {
    out.a[to] = players.get(columns.a[from]!)!;
    out.b[to] = players.get(columns.b[from]!)!;
    out.outcome[to] = columns.outcome[from]!;
    out.category[to] = columns.category[from]!;
    out.features.set(columns.features.subarray(from * width, (from + 1) * width), to * width);
  });
  return out;
}
