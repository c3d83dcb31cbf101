import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControlEvents } from '@holdfast/shared/control';
import { ProgressRoutes } from './progress.js';

describe('progress routes (issue 13)', () => {
  it('delivers tool.progress events to the open call with that id only, until it closes', () => {
    const routes = new ProgressRoutes();
    const got: unknown[] = [];
    const id = routes.open((p) => got.push(p));
    routes.deliver(ControlEvents.toolProgress, { progress_id: id, progress: 1, total: 2, message: 'half' });
    routes.deliver(ControlEvents.toolProgress, { progress_id: 'other', progress: 9 });
    routes.deliver('daemon.draining', { progress_id: id, progress: 9 });
    routes.deliver(ControlEvents.toolProgress, { progress_id: id, progress: 'bad' });
    routes.close(id);
    routes.deliver(ControlEvents.toolProgress, { progress_id: id, progress: 2 });
    assert.deepEqual(got, [{ progress: 1, total: 2, message: 'half' }]);
  });
});
