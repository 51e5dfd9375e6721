/** Every workflow the worker runs. */
export { deliverPrompt } from './deliver-prompt';
export { runGym } from './run-gym';
export { dispatchArena } from './dispatch-arena';
export { recordVote } from './record-vote';
export { liveBattle } from './live-battle';
export { refreshLeaderboard } from './refresh-leaderboard';
export { codingSession } from './coding-session';
export { runBenchmark } from './run-benchmark';
export { applyRetention } from './apply-retention';
