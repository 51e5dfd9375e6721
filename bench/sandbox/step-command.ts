/** The command each step of the sandbox figure runs: a process start and a little output, as an agent's `ls` or `cat`. */
export const STEP_COMMAND = ['sh', '-c', 'echo step'];
