/** Runs an OpenAPI document through @seriousme/openapi-schema-validator (an ES module, so in a child Node process). */
import { spawn } from 'node:child_process';
import path from 'node:path';

const SCRIPT = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
`;

export interface ValidationResult {
  valid: boolean;
  version?: string;
  errors?: unknown;
}

export function validateOpenApi(document: unknown): Promise<ValidationResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: path.join(__dirname, '..', '..', '..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`validator exited with ${code}: ${stderr}`));
      resolve(JSON.parse(stdout) as ValidationResult);
    });
    child.stdin.end(JSON.stringify(document));
  });
}
