/** The times of an activity that sends a prompt and waits for the answer: push and A2A alike. */

/**
 * How often a sending activity (push or A2A) heartbeats; the workflow's heartbeat timeout (10 s) is twice this.
 * Each heartbeat that reaches the server is a billable action on Temporal Cloud (the SDK throttles
 * them to one per 8 s after the first), so an agent that answers within 5 s costs none.
 */
export const HEARTBEAT_EVERY_MS = 5_000;
/**
 * What the agent gets on top of its deadline, counted from the moment the request was handed to the
 * socket: the time the prompt takes to arrive. Without it an agent that never answers was recorded
 * up to 3 ms before its deadline had passed since the prompt reached it (bench, loopback).
 */
export const ARRIVAL_GRACE_MS = 50;
