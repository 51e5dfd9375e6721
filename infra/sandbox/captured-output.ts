/**
 * One output stream of a sandboxed command, kept up to a limit: its start, or its end (where a test run
 * prints its summary). What falls outside is read and dropped, never held: a command printing 100 MB
 * costs the worker the limit and one chunk.
 */

export type KeptPart = 'head' | 'tail';

export class CapturedOutput {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** True once anything was dropped. */
  truncated = false;

  constructor(
    private readonly limit: number,
    private readonly part: KeptPart = 'head',
  ) {}

  add(chunk: Buffer): void {
    if (this.part === 'tail') return this.addToTail(chunk);
    const room = this.limit - this.kept;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    this.truncated = true;
    if (room <= 0) return;
    // A copy, so the rest of a large chunk is not kept alive by a slice of it.
    this.chunks.push(Buffer.from(chunk.subarray(0, room)));
    this.kept += room;
  }

  /** The kept bytes as text; a character the cut split in two is left out rather than mangled. */
  text(): string {
    const bytes = Buffer.concat(this.chunks, this.kept);
    if (!this.truncated) return bytes.toString('utf8');
    if (this.part === 'head') return bytes.subarray(0, completeUtf8Length(bytes)).toString('utf8');
    let start = 0;
    while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString('utf8');
  }

  private addToTail(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept > this.limit) {
      this.truncated = true;
      const first = this.chunks[0]!;
      const excess = this.kept - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.kept -= first.length;
      } else {
        this.chunks[0] = Buffer.from(first.subarray(excess));
        this.kept -= excess;
      }
    }
  }
}

/** The length of `bytes` without a multi-byte UTF-8 sequence left incomplete at its end. */
function completeUtf8Length(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
