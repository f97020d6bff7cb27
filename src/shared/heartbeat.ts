/**
 * Worker heartbeats: every `svc worker` (and `serve --with-worker`, `start`) stamps its row every
 * 15 seconds and removes it on a clean stop; `svc check` reports a problem when no worker was seen within a minute. Rows of
 * workers gone for a day are removed by the next heartbeat.
 */
import { hostname } from 'node:os';
import { Op, fn } from 'sequelize';
import { WorkerHeartbeat } from './worker-heartbeat.model.js';

export const HEARTBEAT_SECONDS = 15;

/** Stamps this worker's heartbeat (now, by the database's clock). */
export async function recordHeartbeat(workerId: string, startedAt: Date): Promise<void> {
  const now = fn('now') as unknown as Date;
  await WorkerHeartbeat.upsert({ workerId, host: hostname(), pid: process.pid, startedAt, seenAt: now }, { returning: false });
  await WorkerHeartbeat.destroy({ where: { seenAt: { [Op.lt]: new Date(Date.now() - 86_400_000) } } });
}

/** Removes this worker's heartbeat (a clean stop: svc check must not count a stopped worker alive). */
export async function removeHeartbeat(workerId: string): Promise<void> {
  await WorkerHeartbeat.destroy({ where: { workerId } });
}

/** Every worker heartbeat, the latest first, with its age in seconds. */
export async function workerHeartbeats(): Promise<{ worker_id: string; host: string; pid: number; seen_at: Date; age_seconds: number }[]> {
  const rows = await WorkerHeartbeat.findAll({ order: [['seenAt', 'DESC']], limit: 50 });
  const now = Date.now();
  return rows.map((r) => ({
    worker_id: r.workerId,
    host: r.host,
    pid: r.pid,
    seen_at: r.seenAt,
    age_seconds: Math.round((now - new Date(r.seenAt).getTime()) / 1000),
  }));
}
