import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { TOOLS } from './index.js';
import { toolListing } from './json-schema.js';
import { artifactTool } from './artifact.js';
import { planTool } from './plan.js';
import { progressTool } from './progress.js';
import { ActivityUpdate, withWorkTracking } from './work-tracking.js';

/** Bytes of a tool's `tools/list` entry without its outputSchema (the budgets of issue 11). */
const listingBytes = (t: ToolDef): number => Buffer.byteLength(JSON.stringify({ ...toolListing(t), outputSchema: undefined }));

describe('work-tracking arguments on every session tool (issue 11)', () => {
  it('every tool with remote_session_id accepts activity and plan ids; the others are untouched', () => {
    for (const t of TOOLS) {
      const props = (toolListing(t).inputSchema.properties ?? {}) as Record<string, unknown>;
      const session = JSON.stringify(toolListing(t).inputSchema).includes('"remote_session_id"');
      assert.equal(t.workTracking !== undefined, session, t.name);
      if (session && props.remote_session_id) assert.ok(props.activity && props.plan_id && props.plan_task_id, t.name);
    }
  });

  it('covers a tool added later without edits, and adds about 300 bytes to its listing', () => {
    const later: ToolDef = {
      name: 'later',
      title: 'Later',
      description: 'a tool another issue adds',
      input: z.object({ action: z.enum(['a']), remote_session_id: z.string() }),
      output: envelopeSchema(LooseData),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
    const extended = withWorkTracking(later);
    assert.deepEqual(extended.workTracking, { plan: true });
    const added = listingBytes(extended) - listingBytes(later);
    // activity names its six keys as properties: Gemini refuses an object parameter without them (issue 8).
    assert.ok(added <= 320, `${added} bytes added`);
    assert.doesNotMatch(JSON.stringify(toolListing(extended).inputSchema), /\$ref|anyOf|oneOf/);
  });

  it('the plan, progress and artifact listings stay within their budgets (without the generic fields)', () => {
    for (const [tool, max] of [[planTool, 1500], [progressTool, 700], [artifactTool, 900]] as const) {
      const bytes = listingBytes(tool);
      assert.ok(bytes <= max, `${tool.name}: ${bytes} bytes`);
    }
  });

  it('activity is checked strictly: only its keys, strings, at least one', () => {
    assert.equal(ActivityUpdate.safeParse({ intent: 'x' }).success, true);
    assert.equal(ActivityUpdate.safeParse({}).success, false);
    assert.equal(ActivityUpdate.safeParse({ mood: 'x' }).success, false);
    assert.equal(ActivityUpdate.safeParse({ next: 3 }).success, false);
  });
});
