import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.js';
import { percentile, waitForHttp, type BenchScenario } from '../lib.js';

const ROUNDS = 8; // 4 with --quick
const SLICE_SECONDS = 2;

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * ping with every plugin on versus a bare node:http server (goal: ≥ 45 %), with bare hapi beside
 * them. This machine's speed drifts by tens of percent within seconds (shared 2-core guest), so the
 * three servers stay up and are measured in turn in short slices, round after round: each round's
 * ratio compares neighbouring measurements, and the report gives the median of the rounds.
 */
export const scenario: BenchScenario = {
  name: 'ping',
  description: `GET /api/method/ping (auth, logging, error rendering on) vs bare node:http and bare hapi, 50 connections, ${ROUNDS} interleaved rounds of ${SLICE_SECONDS} s each (4 with --quick; median)`,
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
      for (const v of variants) await ctx.http({ ...opts, url: v.url, duration: 2 }); // warm-up
      const runs = new Map(variants.map((v) => [v.key, [] as Awaited<ReturnType<typeof ctx.http>>[]]));
      for (let round = 0; round < rounds; round++) {
        for (const v of variants) runs.get(v.key)!.push(await ctx.http({ ...opts, url: v.url, duration: SLICE_SECONDS }));
      }
      const ratios = (key: string) => runs.get(key)!.map((r, i) => r.rps / runs.get('node')![i].rps);
      const svcRatio = median(ratios('svc'));
      const errors = runs.get('svc')!.reduce((n, r) => n + r.errors, 0);
      const non2xx = runs.get('svc')!.reduce((n, r) => n + r.non2xx, 0);
      return variants.map((v) => {
        const rs = runs.get(v.key)!;
        const row = { case: 'ping', variant: v.label, rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) };
        const perRound = `rounds ${rs.map((r) => r.rps).join(' / ')} req/s`;
        if (v.key === 'node') return { ...row, note: perRound };
        if (v.key === 'hapi' || v.key === 'svc-quiet')
          return { ...row, note: `${(median(ratios(v.key)) * 100).toFixed(0)} % of ceiling (median of the rounds' ratios); ${perRound}` };
        return {
          ...row,
          note: `${(svcRatio * 100).toFixed(0)} % of ceiling (median of ${ratios('svc')
            .map((r) => `${(r * 100).toFixed(0)} %`)
            .join(', ')}; goal ≥ 45 %: ${svcRatio >= 0.45 ? 'met' : 'NOT met'}); ${perRound}; errors ${errors}, non-2xx ${non2xx}`,
        };
      });
    } finally {
      for (const child of children) child.kill('SIGTERM');
    }
  },
};
