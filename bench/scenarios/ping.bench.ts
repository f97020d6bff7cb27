import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.js';
import { interleave, ratioSpread, spreadNote, summarizeSlices, waitForHttp, type BenchScenario } from '../lib.js';

const ROUNDS = 8; // 4 with --quick
const SLICE_SECONDS = 2;

/**
 * ping with every plugin on versus a bare node:http server (goal: ≥ 45 %), with bare hapi beside
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
      children.push(spawn(process.execPath, [join(servers, script), String(port)], { stdio: 'ignore' }));
      const url = `http://127.0.0.1:${port}${path}`;
      await waitForHttp(url);
      return url;
    };
    try {
      const variants = [
        { key: 'node', label: 'bare node:http (ceiling)', url: await startBare('bare-http.js', '/') },
        { key: 'hapi', label: 'bare hapi, one route (framework alone)', url: await startBare('bare-hapi.js', '/api/method/ping') },
        { key: 'svc', label: 'svc serve, all plugins, info logging', url: `${(await ctx.serve(1, { SVC_LOG_LEVEL: 'info' }))[0]}/api/method/ping` },
        // for reading the access log's share only; the goal is judged with it on
        {
          key: 'svc-quiet',
          label: 'svc serve, access log off (SVC_LOG_LEVEL=warn)',
          url: `${(await ctx.serve(1, { SVC_LOG_LEVEL: 'warn' }))[0]}/api/method/ping`,
        },
      ];
      const rounds = ctx.quick ? 4 : ROUNDS;
      const opts = { connections: 50, pipelining: 1 };
      const runs = await interleave(
        variants.map((v) => ({ key: v.key, measure: (duration: number) => ctx.http({ ...opts, url: v.url, duration }) })),
        { rounds, seconds: SLICE_SECONDS },
      );
      const node = runs.get('node')!;
      return variants.map((v) => {
        const m = summarizeSlices(runs.get(v.key)!);
        const row = { case: 'ping', variant: `${v.label}, ${rounds} rounds`, rps: m.rps, p50: m.p50, p99: m.p99 };
        const perRound = `${m.rounds} req/s`;
        if (v.key === 'node') return { ...row, note: perRound };
        const ratio = ratioSpread(runs.get(v.key)!, node);
        if (v.key !== 'svc') return { ...row, note: `${spreadNote(ratio, 'ceiling')}; ${perRound}` };
        return {
          ...row,
          note: `${spreadNote(ratio, 'ceiling')}; goal ≥ 45 %: ${ratio.median >= 0.45 ? 'met' : 'NOT met'}; ${perRound}; errors ${m.errors}, non-2xx ${m.non2xx}`,
        };
      });
    } finally {
      for (const child of children) child.kill('SIGTERM');
    }
  },
};
