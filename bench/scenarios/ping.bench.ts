import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.js';
import { interleave, processCpuMs, ratioSpread, serveCheckout, spreadNote, summarizeSlices, waitForHttp, type BenchScenario, type Slice } from '../lib.js';

const ROUNDS = 8; // 4 with --quick
const SLICE_SECONDS = 2;

/**
 * ping with every plugin on versus a bare node:http server (issue 29's goal: ≥ 55 %), with bare hapi beside
 * them. This machine's speed drifts by tens of percent within seconds (shared 2-core guest), so the
 * servers stay up and are measured in turn in short slices, round after round (lib.ts interleave):
 * each round's ratio compares neighbouring measurements, and the report gives the median of the
 * rounds' ratios and their spread.
 */
export const scenario: BenchScenario = {
  name: 'ping',
  description: `GET /api/method/ping (auth, logging, error rendering on) vs bare node:http and bare hapi, 50 connections, ${ROUNDS} interleaved rounds of ${SLICE_SECONDS} s each (4 with --quick; the median of the rounds' ratios and their min–max spread)`,
  timing: `${SLICE_SECONDS} s per measurement after a 2 s warm-up`,
  async run(ctx) {
    const servers = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'servers');
    const children: ChildProcess[] = [];
    const startBare = async (script: string, path: string) => {
      const port = await freePort();
      const child = spawn(process.execPath, [join(servers, script), String(port)], { stdio: 'ignore' });
      children.push(child);
      const url = `http://127.0.0.1:${port}${path}`;
      await waitForHttp(url);
      return { url, cpu: () => processCpuMs(child.pid) };
    };
    const startSvc = async (level: string) => {
      const [base] = await ctx.serve(1, { SVC_LOG_LEVEL: level });
      return { url: `${base}/api/method/ping`, cpu: () => ctx.cpuMs(base) };
    };
    // SVC_BENCH_COMPARE=<another checkout, built>: its serve (info logging) measured in the same rounds
    const startCompare = async (root: string) => {
      const env = { SVC_ENV: 'development', DATABASE_URL: ctx.dbUrl, SVC_LOG_LEVEL: 'info', SVC_DB_POOL_MAX: '20' };
      const { url, child } = await serveCheckout(root, env, 'ping-compare');
      children.push(child);
      return { key: 'compare', label: `SVC_BENCH_COMPARE serve (${root}), info logging`, url: `${url}/api/method/ping`, cpu: () => processCpuMs(child.pid) };
    };
    try {
      const root = process.env.SVC_BENCH_COMPARE;
      const variants = [
        { key: 'node', label: 'bare node:http (ceiling)', ...(await startBare('bare-http.js', '/')) },
        { key: 'hapi', label: 'bare hapi, one route (framework alone)', ...(await startBare('bare-hapi.js', '/api/method/ping')) },
        { key: 'svc', label: 'svc serve, all plugins, info logging', ...(await startSvc('info')) },
        // for reading the access log's share only; the goal is judged with it on
        { key: 'svc-quiet', label: 'svc serve, access log off (SVC_LOG_LEVEL=warn)', ...(await startSvc('warn')) },
        ...(root ? [await startCompare(root)] : []),
      ];
      const rounds = ctx.quick ? 4 : ROUNDS;
      const opts = { connections: 50, pipelining: 1 };
      // each slice also takes the server's CPU time per request (/proc): what a request costs, which
      // moves less with the machine's load than the req/s it gets
      const runs = await interleave<Slice & { cpuUs?: number }>(
        variants.map((v) => ({
          key: v.key,
          measure: async (duration: number) => {
            const cpu0 = v.cpu();
            const m = await ctx.http({ ...opts, url: v.url, duration });
            const cpu1 = v.cpu();
            return { ...m, cpuUs: cpu0 !== undefined && cpu1 !== undefined && m.total ? ((cpu1 - cpu0) * 1000) / m.total : undefined };
          },
        })),
        { rounds, seconds: SLICE_SECONDS },
      );
      const node = runs.get('node')!;
      // the ceiling's CPU per request over this one's, round by round (as a ratio of req/s per CPU-second)
      const cpuNote = (key: string) => {
        const mine = runs.get(key)!;
        if (mine.some((r, i) => !r.cpuUs || !node[i].cpuUs)) return 'server CPU n/a';
        const perCpu = (rs: typeof mine) => rs.map((r) => ({ rps: 1 / r.cpuUs!, p50: 0, p99: 0, errors: 0 }));
        const us = mine.map((r) => r.cpuUs!).sort((a, b) => a - b);
        const own = `server CPU ${us[Math.floor(us.length / 2)].toFixed(0)} µs/request (median; ${us[0].toFixed(0)}–${us[us.length - 1].toFixed(0)})`;
        return key === 'node' ? own : `${own}; by CPU per request ${spreadNote(ratioSpread(perCpu(mine), perCpu(node)), 'ceiling')}`;
      };
      return variants.map((v) => {
        const m = summarizeSlices(runs.get(v.key)!);
        const row = { case: 'ping', variant: `${v.label}, ${rounds} rounds`, rps: m.rps, p50: m.p50, p99: m.p99 };
        const perRound = `${m.rounds} req/s`;
        if (v.key === 'node') return { ...row, note: `${perRound}; ${cpuNote(v.key)}` };
        const ratio = ratioSpread(runs.get(v.key)!, node);
        if (v.key !== 'svc') return { ...row, note: `${spreadNote(ratio, 'ceiling')}; ${perRound}; ${cpuNote(v.key)}` };
        return {
          ...row,
          note: `${spreadNote(ratio, 'ceiling')}; issue 29's goal ≥ 55 %: ${ratio.median >= 0.55 ? 'met' : 'NOT met'}; ${perRound}; ${cpuNote(v.key)}; errors ${m.errors}, non-2xx ${m.non2xx}`,
        };
      });
    } finally {
      for (const child of children) child.kill('SIGTERM');
    }
  },
};
