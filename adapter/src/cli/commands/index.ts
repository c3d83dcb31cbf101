import type { Command } from 'commander';
import { registerAttach } from './attach.js';
import { registerDaemon } from './daemon.js';
import { registerDesktop } from './desktop.js';
import { registerDoctor } from './doctor.js';
import { registerList } from './list.js';
import { registerOAuth } from './oauth.js';
import { registerMcp } from './mcp.js';
import { registerObserve } from './observe.js';
import { registerRestartDaemon } from './restart-daemon.js';
import { registerSecret } from './secret.js';
import { registerServe } from './serve.js';
import { registerSessionsAdmin } from './sessions-admin.js';
import { registerWorkspace } from './workspace.js';

/** Registers one subcommand (one file per command, house style). */
export type RegisterCommand = (program: Command) => void;

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: RegisterCommand[] = [registerServe, registerList, registerAttach, registerObserve, registerSessionsAdmin, registerRestartDaemon, registerDoctor, registerWorkspace, registerOAuth, registerMcp, registerSecret, registerDesktop, registerDaemon];
