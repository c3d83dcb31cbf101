import type { HomeLayout } from '@holdfast/shared/paths';
import type { Db } from '../store/db.js';
import { ActivityRepo } from '../store/activity-repo.js';
import { ArtifactsRepo } from '../store/artifacts-repo.js';
import { PlansRepo } from '../store/plans-repo.js';
import { ProgressRepo } from '../store/progress-repo.js';
import type { TempFilesRepo } from '../store/temp-files-repo.js';
import { ArtifactStore } from './artifact-store.js';

/** What the work-tracking tools (issue 11: plan, progress, artifact, activity) share, wired once by the daemon. */
export interface WorkServices {
  plans: PlansRepo;
  progress: ProgressRepo;
  artifacts: ArtifactsRepo;
  activity: ActivityRepo;
  /** Artifact bytes in `state/artifacts/`. */
  store: ArtifactStore;
}

/** Wires the work-tracking repositories and the artifact store. */
export function createWorkServices(db: Db, layout: HomeLayout, temps: TempFilesRepo): WorkServices {
  return {
    plans: new PlansRepo(db),
    progress: new ProgressRepo(db),
    artifacts: new ArtifactsRepo(db),
    activity: new ActivityRepo(db),
    store: new ArtifactStore(layout, temps),
  };
}
