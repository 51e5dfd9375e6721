/** The engine baseline's task queue, shared by its worker process and the bench that starts its workflows. */
export const ENGINE_TASK_QUEUE = 'bench-engine';
