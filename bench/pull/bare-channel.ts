/** The NOTIFY channel of the long-poll baseline, shared by its server and the bench that wakes it. */
export const BARE_CHANNEL = 'bench_wake';
