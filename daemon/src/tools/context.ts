import type { CallContext } from '@holdfast/shared/control';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { ConfigStore } from '../config-store.js';
import type { DesktopPanel } from '../desktop/desktop-panel.js';
import type { EnvironmentService } from '../environment/service.js';
import type { DesktopService } from '../desktop/desktop-service.js';
import type { ExecutionServices } from '../execution/services.js';
import type { ExtensionServices } from '../extensions/services.js';
import type { FileServices } from '../files/file-services.js';
import type { OperationServices } from '../operations/services.js';
import type { SessionManager } from '../sessions/manager.js';
import type { DiskSpace } from '../store/disk-space.js';
import type { EventsRepo } from '../store/events-repo.js';
import type { WorkServices } from '../work/services.js';

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
  /** Skills and upstream MCP servers: skill_tool, mcp_tool, the session inventory (issue 13). */
  extensions: ExtensionServices;
  /** Work tracking: plans, progress, artifacts, activity (issue 11). */
  work: WorkServices;
  /** Batched and async operations (issue 12). */
  operations: OperationServices;
  /** Environment readings and snapshots (issue 12). */
  environment: EnvironmentService;
  /** Desktop devices and sessions: the desktop tools and screenshot_capture (issue 15). */
  desktop: DesktopService;
  /** The desktop panel (issue 16): how views reach the person, the MCP Apps view. */
  desktopPanel: DesktopPanel;
  /** Free space under the state: writes are refused with DISK_FULL while the disk is full (issue 18). */
  disk: DiskSpace;
}

/** One progress update of a running tool call (MCP `notifications/progress` fields). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Per-call context: who calls, over what, and a signal aborted when the caller gives up. */
export interface ToolContext {
  call: CallContext;
  services: ToolServices;
  signal: AbortSignal;
  /**
   * Sends progress to the client while the call runs; set only when the client asked for progress
   * (`CallContext.progress_id`). Handlers that wait long call it (issue 13: upstream progress).
   */
  progress?: (p: ProgressUpdate) => void;
}
