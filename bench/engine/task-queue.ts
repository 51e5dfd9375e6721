/** The engine baseline's task queue, shared by its worker process and the bench that starts its workflows. */
export const ENGINE_TASK_QUEUE = 'bench-engine';
/** Where the engine baseline's sandbox steps run: the second queue of its worker process, as a worker's own queue in the arena. */
export const ENGINE_STEP_TASK_QUEUE = 'bench-engine-steps';
