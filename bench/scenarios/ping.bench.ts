import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/db/embedded.js';
import { waitForHttp, type BenchScenario } from '../lib.js';

/** ping with every plugin on versus a bare node:http server (goal: ≥ 45 %). */
export const scenario: BenchScenario = {
  name: 'ping',
  description: 'GET /api/method/ping (auth, logging, error rendering on) vs bare node:http, 50 connections',
  async run(ctx) {
    const port = await freePort();
    const bare = spawn(process.execPath, [join(fileURLToPath(new URL('.', import.meta.url)), '..', 'servers', 'bare-http.js'), String(port)], { stdio: 'ignore' });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/`);
      const opts = { connections: 50, duration: ctx.duration, pipelining: 1 };
      await ctx.http({ ...opts, url: `http://127.0.0.1:${port}/`, duration: 2 }); // warm-up
      const raw = await ctx.http({ ...opts, url: `http://127.0.0.1:${port}/` });
      bare.kill('SIGTERM');
      const hapiPort = await freePort();
      const hapi = spawn(process.execPath, [join(fileURLToPath(new URL('.', import.meta.url)), '..', 'servers', 'bare-hapi.js'), String(hapiPort)], { stdio: 'ignore' });
      let framework;
      try {
        await waitForHttp(`http://127.0.0.1:${hapiPort}/api/method/ping`);
        await ctx.http({ ...opts, url: `http://127.0.0.1:${hapiPort}/api/method/ping`, duration: 2 });
        framework = await ctx.http({ ...opts, url: `http://127.0.0.1:${hapiPort}/api/method/ping` });
      } finally {
        hapi.kill('SIGTERM');
      }
      const [url] = await ctx.serve(1, { SVC_LOG_LEVEL: 'info' });
      await ctx.http({ ...opts, url: `${url}/api/method/ping`, duration: 2 });
      const svc = await ctx.http({ ...opts, url: `${url}/api/method/ping` });
      const ratio = svc.rps / raw.rps;
      return [
        { case: 'ping', variant: 'bare node:http (ceiling)', rps: raw.rps, p50: raw.p50, p99: raw.p99 },
        { case: 'ping', variant: 'bare hapi, one route (framework alone)', rps: framework.rps, p50: framework.p50, p99: framework.p99, note: `${((framework.rps / raw.rps) * 100).toFixed(0)} % of ceiling` },
        { case: 'ping', variant: 'svc serve, all plugins, info logging', rps: svc.rps, p50: svc.p50, p99: svc.p99, note: `${(ratio * 100).toFixed(0)} % of ceiling (goal ≥ 45 %: ${ratio >= 0.45 ? 'met' : 'NOT met'}); errors ${svc.errors}, non-2xx ${svc.non2xx}` },
      ];
    } finally {
      bare.kill('SIGTERM');
    }
  },
};
