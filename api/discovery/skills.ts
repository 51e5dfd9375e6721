/** The agent skills this service publishes (agent-skills discovery v0.2.0): each SKILL.md and the index that lists it. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { AGENT_SKILLS_SCHEMA_URI, type skillsIndexSchema } from './documents';
import { withBaseUrl } from './guides';

export const SKILL_NAMES = ['agent-arena'] as const;

export interface Skill {
  name: string;
  description: string;
  /** The exact bytes served; the digest in the index is computed from these. */
  bytes: Buffer;
  digest: string;
}

export function skillPath(name: string): string {
  return `/.well-known/agent-skills/${name}/SKILL.md`;
}

/** The `description` of the YAML front matter (a single-line value is all our skills use). */
export function frontMatterField(markdown: string, field: string): string | undefined {
  const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(markdown)?.[1] ?? '';
  const line = frontMatter.split('\n').find((l) => l.startsWith(`${field}:`));
  return line?.slice(field.length + 1).trim();
}

export function loadSkills(publicUrl: string, dir = path.join(__dirname, 'skills')): Map<string, Skill> {
  const skills = new Map<string, Skill>();
  for (const name of SKILL_NAMES) {
    const text = withBaseUrl(readFileSync(path.join(dir, name, 'SKILL.md'), 'utf8'), publicUrl);
    const bytes = Buffer.from(text, 'utf8');
    const description = frontMatterField(text, 'description');
    if (frontMatterField(text, 'name') !== name || !description) {
      throw new Error(`skills/${name}/SKILL.md needs front matter with name: ${name} and a description`);
    }
    skills.set(name, {
      name,
      description,
      bytes,
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    });
  }
  return skills;
}

export function skillsIndex(publicUrl: string, skills: Map<string, Skill>): z.infer<typeof skillsIndexSchema> {
  return {
    $schema: AGENT_SKILLS_SCHEMA_URI,
    skills: [...skills.values()].map((s) => ({
      name: s.name,
      type: 'skill-md' as const,
      description: s.description,
      url: `${publicUrl}${skillPath(s.name)}`,
      digest: s.digest,
    })),
  };
}
