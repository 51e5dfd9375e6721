/** Every workflow the worker runs. */
export { deliverPrompt } from './deliver-prompt';
export { runGym } from './run-gym';
export { dispatchArena, liveBattle, recordVote, refreshLeaderboard } from './arena';
