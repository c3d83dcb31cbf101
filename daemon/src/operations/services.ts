import type { OperationsRepo } from '../store/operations-repo.js';
import type { OperationRunner } from './operation-runner.js';

/** What `operation_batch` and `operation_manage` use (issue 12; wired once by the daemon). */
export interface OperationServices {
  repo: OperationsRepo;
  runner: OperationRunner;
}
