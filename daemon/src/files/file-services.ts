import { FileLimits } from '@holdfast/shared/constants';
import type { HomeLayout } from '@holdfast/shared/paths';
import { AuditLog } from '../audit.js';
import { ProjectConfigCache } from '../policy/project-config.js';
import type { Db } from '../store/db.js';
import { EditFilesRepo } from '../store/edit-files-repo.js';
import { EditsRepo } from '../store/edits-repo.js';
import { FileReadsRepo } from '../store/file-reads-repo.js';
import { IdempotencyRepo } from '../store/idempotency-repo.js';
import { MoveRequestsRepo } from '../store/move-requests-repo.js';
import { TempFilesRepo } from '../store/temp-files-repo.js';
import { CodeMapService } from './code-map/code-map-service.js';
import { sweepWrites } from './in-place-write.js';
import { FactsCache } from './file-facts.js';
import { PathLocks } from './path-lock.js';
import { SearchService, type EngineChoice } from './search/search-service.js';

/**
 * Everything the file tools share (issue 4), wired once by the daemon: the repositories of their
 * tables, caches, per-path locks, the search engines, the code map and the audit log.
 */
export class FileServices {
  readonly reads: FileReadsRepo;
  readonly edits: EditsRepo;
  readonly editFiles: EditFilesRepo;
  readonly idempotency: IdempotencyRepo;
  readonly moves: MoveRequestsRepo;
  readonly temps: TempFilesRepo;
  readonly facts = new FactsCache();
  readonly projects: ProjectConfigCache;
  readonly locks = new PathLocks();
  readonly search: SearchService;
  /** Outline, ranked map and references (issue 17). */
  readonly codeMap = new CodeMapService();
  readonly audit: AuditLog;
  /** Runs `fn` in one SQLite transaction (the rows of one edit call commit together). */
  readonly transaction: <T>(fn: () => T) => T;

  constructor(db: Db, layout: HomeLayout, opts: { engine?: EngineChoice; projects?: ProjectConfigCache; audit?: AuditLog } = {}) {
    this.reads = new FileReadsRepo(db);
    this.edits = new EditsRepo(db);
    this.editFiles = new EditFilesRepo(db);
    this.idempotency = new IdempotencyRepo(db, FileLimits.IDEMPOTENCY_TTL_MS);
    this.moves = new MoveRequestsRepo(db);
    this.temps = new TempFilesRepo(db);
    this.projects = opts.projects ?? new ProjectConfigCache();
    this.search = new SearchService(opts.engine ?? 'auto');
    this.audit = opts.audit ?? new AuditLog(layout.auditLog);
    this.transaction = <T>(fn: () => T): T => db.transaction(fn)();
  }

  /**
   * Start-up: completes in-place writes (hard-linked files) that a killed daemon left half done,
   * then removes temp files of atomic writes it left behind. Returns the paths handled.
   */
  recover(): string[] {
    const r = sweepWrites(this.temps);
    return [...r.completed, ...r.removed];
  }

  /** Shutdown: stops the search and code-map workers. */
  async close(): Promise<void> {
    await Promise.all([this.search.close(), this.codeMap.close()]);
  }
}
