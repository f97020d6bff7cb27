/**
 * deploy/prometheus/alerts.yml: every rule is complete (expr, for, severity, summary, runbook_url),
 * its runbook is a section of docs/operations.md, and every metric its expression reads is one the
 * service registers (or Prometheus's own `up`). promtool is not needed to run this.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { projectRoot } from '../../src/config/index.js';
import { registry } from '../../src/shared/metrics.js';

interface Rule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; runbook_url?: string };
}

const rules = (
  yaml.load(readFileSync(join(projectRoot, 'deploy', 'prometheus', 'alerts.yml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] }
).groups.flatMap((g) => g.rules);
const guide = readFileSync(join(projectRoot, 'docs', 'operations.md'), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchors = new Set([...guide.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));

test('the alerts cover the outbox, partners, webhooks, the worker heartbeat, lockouts and down targets', (t) => {
  t.deepEqual(rules.map((r) => r.alert).sort(), [
    'SvcLockoutSpike',
    'SvcLoginFailureSpike',
    'SvcOutboxBacklog',
    'SvcPartnerFailureRate',
    'SvcTargetDown',
    'SvcWebhookDeliveriesFailing',
    'SvcWorkerHeartbeatMissing',
  ]);
});

test('every rule has expr, for, a severity, a summary and a runbook in docs/operations.md', (t) => {
  for (const r of rules) {
    t.truthy(r.expr, `${r.alert}: expr`);
    t.regex(r.for ?? '', /^\d+[smh]$/, `${r.alert}: for`);
    t.true(['critical', 'warning'].includes(r.labels?.severity ?? ''), `${r.alert}: severity`);
    t.truthy(r.annotations?.summary, `${r.alert}: summary`);
    const [file, anchor] = (r.annotations?.runbook_url ?? '').split('#');
    t.is(file, 'docs/operations.md', `${r.alert}: runbook_url`);
    t.true(anchors.has(anchor), `${r.alert}: docs/operations.md has no section #${anchor}`);
  }
});

test('every metric an expression reads is registered by the service (or Prometheus’s up)', (t) => {
  const registered = new Set(registry.getMetricsAsArray().map((m) => m.name));
  t.true(registered.has('svc_outbox_oldest_due_age_seconds'), 'the registry is the service’s');
  for (const r of rules)
    for (const [name] of (r.expr ?? '').matchAll(/\b(svc_[a-z0-9_]+|up)\b/g)) {
      const metric = name.replace(/_(bucket|count|sum)$/, '');
      t.true(metric === 'up' || registered.has(metric), `${r.alert}: ${name} is not a metric of the service`);
    }
});
