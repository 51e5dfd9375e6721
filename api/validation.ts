/**
 * Request validation with the routes' zod schemas, phrased for people: every broken rule becomes
 * "<field> <rule>" ("deadline_seconds must be at most 300"), never the library's own wording.
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/** The raw issue zod hands an error map: its code plus whatever that code carries. */
type RawIssue = {
  code?: string;
  input?: unknown;
  expected?: string;
  origin?: string;
  format?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
  inclusive?: boolean;
  values?: unknown[];
  keys?: string[];
  divisor?: number | bigint;
  discriminator?: string;
  options?: unknown[];
  message?: string;
  inst?: unknown;
};

/** `a, b, tie or both_bad` */
function orList(values: unknown[]): string {
  const words = values.filter((v) => v !== undefined && v !== null).map(String);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** Whether the schema behind an issue only takes whole numbers (`.int()` gives it a `safeint` format). */
function isWholeNumberSchema(inst: unknown): boolean {
  const format = (inst as { format?: unknown } | undefined)?.format;
  return typeof format === 'string' && format.includes('int');
}

const TYPE_RULES: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be a whole number',
  bigint: 'must be a whole number',
  boolean: 'must be true or false',
  object: 'must be a JSON object',
  array: 'must be an array',
  null: 'must be null',
  never: 'must be omitted',
  undefined: 'must be omitted',
};

/**
 * The rule an issue broke, as a predicate for its field ("must be at most 300"). A zod error map,
 * passed to each parse: a message a schema gives itself wins over it.
 */
export function ruleFor(issue: RawIssue): string {
  const { code } = issue;
  switch (code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'number' && isWholeNumberSchema(issue.inst)) return TYPE_RULES.int!;
      return TYPE_RULES[issue.expected ?? ''] ?? `must be ${issue.expected}`;
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'string') return min === '1' ? 'must not be empty' : `must be at least ${min} characters`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return min === '1' ? 'must not be empty' : `must have at least ${min} items`;
      return issue.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case 'invalid_value':
      return `must be ${orList(issue.values ?? [])}`;
    case 'invalid_union':
      return issue.discriminator
        ? `must be ${orList(issue.options ?? [])}`
        : 'does not match any of the accepted forms';
    case 'invalid_format':
      if (issue.format === 'email') return 'must be an email address';
      if (issue.format === 'url') return 'must be a URL';
      return issue.format && issue.format !== 'regex'
        ? `must be a valid ${issue.format}`
        : 'is not in the expected format';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `has unknown field${(issue.keys?.length ?? 0) > 1 ? 's' : ''} ${(issue.keys ?? []).join(', ')}`;
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has a value that is not valid';
    default:
      return issue.message ?? 'is not valid';
  }
}

/** What a request part is called when the whole of it is wrong. */
const PART_NAMES: Record<string, string> = {
  body: 'the body',
  querystring: 'the query string',
  params: 'the path',
  headers: 'the headers',
  form: 'the form',
};

/** A rule reads after its field's name; a schema's own sentence ("send exactly one of …") stands alone. */
const PREDICATE = /^(must|is|has|does|should|cannot|may)\b/;

/**
 * One sentence for a failed parse: each field with the first rule it broke, in order, e.g.
 * "name is required; webhook_url is required for push agents".
 */
export function describeIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  part: string,
): string {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    const field = issue.path.map(String).join('.');
    if (byField.has(field)) continue;
    const subject = field || PART_NAMES[part] || part;
    byField.set(field, PREDICATE.test(issue.message) ? `${subject} ${issue.message}` : issue.message);
  }
  return [...byField.values()].join('; ');
}

/** A request that broke its route's schema: a 400 whose detail is already the sentence to show. */
export class RequestInvalid extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_VALIDATION';
  constructor(
    detail: string,
    readonly validationContext: string,
  ) {
    super(detail);
  }
}

/** Fastify's validator compiler for zod schemas, with rules phrased by `ruleFor`. */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = schema.safeParse(data, { error: ruleFor });
    if (result.success) return { value: result.data };
    const part = httpPart ?? 'body';
    return { error: new RequestInvalid(describeIssues(result.error.issues, part), part) };
  };
