import type { skillTool } from '@holdfast/shared/tools';
import type * as z from 'zod';

/** Parsed arguments of `skill_tool` (issue 13). */
export type SkillToolArgs = z.output<typeof skillTool.input>;
