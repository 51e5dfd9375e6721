/** The PostgreSQL NOTIFY channel on which queued pull work wakes long-polls (payload: the agent id). */
export const WORK_CHANNEL = 'arena_work';
