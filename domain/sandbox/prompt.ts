/** What a coding session's agent is told: the task's statement, then how to work the session. */
export function codingPrompt(title: string, statement: string, maxSteps: number): string {
  const text = statement.trim();
  return [
    ...(text.startsWith('#') ? [] : [`# ${title}`, '']),
    text,
    '',
    '---',
    'You work in a sandboxed copy of the repository through the session API in the `sandbox` object of this',
    'prompt (with `Authorization: Bearer <token>`): `POST exec` runs a command in the workspace, `GET files?path=`',
    'reads a file or lists a folder, `PUT files?path=` writes a file, and `POST submit` runs the hidden tests and',
    'ends the session. The same steps are MCP tools (exec, read_file, write_file, list_files, submit) at the',
    "sandbox's `mcp_url` (Streamable HTTP, with the same token).",
    `You have at most ${maxSteps} steps and until the deadline.`,
  ].join('\n');
}
