/** What every `arena` command shares: where its lines go, and the error that ends it with a message and exit code 1. */
export type Print = (line: string) => void;

export class CommandError extends Error {}
