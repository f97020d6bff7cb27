/**
 * Work a process does once at start-up, before it serves or works (serve: the server's onPreStart;
 * worker: before its loops), registered from src/modules.ts. Each task must be safe when several
 * processes start together (take a lock) and cheap when there is nothing to do.
 */
import type { Config } from '../config/index.js';

export interface StartupTask {
  name: string;
  run(config: Config): Promise<unknown>;
}

const tasks: StartupTask[] = [];

/** Registers a start-up task (called from src/modules.ts, never as a side effect of an import). */
export function registerStartupTask(task: StartupTask): void {
  if (!tasks.some((t) => t.name === task.name)) tasks.push(task);
}

/** Runs every registered task, in order of registration. */
export async function runStartupTasks(config: Config): Promise<void> {
  for (const task of tasks) await task.run(config);
}
