import type { CallContext } from '@holdfast/shared/control';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { ConfigStore } from '../config-store.js';
import type { ExecutionServices } from '../execution/services.js';
import type { FileServices } from '../files/file-services.js';
import type { SessionManager } from '../sessions/manager.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { EventsRepo } from '../store/events-repo.js';

/** Services a tool handler may use (the daemon wires them once). */
export interface ToolServices {
  layout: HomeLayout;
  config: ConfigStore;
  sessions: SessionManager;
  events: EventsRepo;
  /** Execution tasks, audit, receipts and project config: execute, observe, log resources (issue 5). */
  execution: ExecutionServices;
  /** Workspace file tools: read, edit, move_out, observe(view=diff) (issue 4). */
  files: FileServices;
  /** Free space under the state: writes are refused with DISK_FULL while the disk is full (issue 18). */
  disk: DiskSpace;
}

/** Per-call context: who calls, over what, and a signal aborted when the caller gives up. */
export interface ToolContext {
  call: CallContext;
  services: ToolServices;
  signal: AbortSignal;
}
