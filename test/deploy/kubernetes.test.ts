/**
 * deploy/kubernetes (issue 25 §5): every manifest validates against the published Kubernetes schemas
 * (kubernetes-models, generated from Kubernetes' OpenAPI), and the manifests agree with each other
 * and with the image: probes on a named container port (the operations port), the Service, HPA and
 * PodDisruptionBudgets select or target the serve and worker pods, secrets only by reference to the
 * documented Secret, pinned images, non-root read-only containers with a writable volume where svc
 * writes, and configuration keys the config module reads.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { ENV_VARS, loadConfig, projectRoot } from '../../src/config/index.js';

const DIR = join(projectRoot, 'deploy', 'kubernetes');
const SECRET_NAME = 'svc-secrets';

/** The schema model of each kind the manifests use, by apiVersion and kind. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1 Job': Job,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'v1 Secret': Secret,
  'v1 Service': Service,
};

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const manifests: Manifest[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) => yaml.loadAll(readFileSync(join(DIR, file), 'utf8')).map((doc) => ({ ...(doc as Manifest), file })));

function validate(manifest: object): void {
  const { apiVersion, kind } = manifest as Manifest;
  const Model = MODELS[`${apiVersion} ${kind}`];
  if (!Model) throw new Error(`no schema model for ${apiVersion} ${kind}`);
  const { file: _file, ...object } = manifest as Manifest;
  new Model(object as never).validate();
}

const one = (kind: string, name: string): Manifest => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found;
};

/** The pod template of a Deployment or Job. */
const podOf = (m: Manifest) => (m.spec as { template: { metadata: { labels: Record<string, string> }; spec: IPodSpec } }).template;
const workloads = () => manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');

const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

test('every manifest validates against the Kubernetes schema of its kind; none names a namespace', (t) => {
  t.true(manifests.length >= 10, manifests.map((m) => m.file).join(', '));
  for (const manifest of manifests) {
    t.notThrows(() => validate(manifest), manifest.file);
    t.is(manifest.metadata.namespace, undefined, `${manifest.file}: applied to the namespace of your choice`);
  }
  const kinds = new Set(manifests.map((m) => m.kind));
  for (const kind of ['Deployment', 'HorizontalPodAutoscaler', 'Job', 'Service', 'PodDisruptionBudget', 'ConfigMap', 'Secret']) t.true(kinds.has(kind), kind);
});

test('the validation refuses a broken manifest: a wrong field type, a missing required field', (t) => {
  const serve = structuredClone(one('Deployment', 'svc-serve'));
  (podOf(serve).spec.containers[0].ports![0] as { containerPort: unknown }).containerPort = 'eight thousand';
  t.throws(() => validate(serve), { message: /containerPort must be integer/ });
  const hpa = structuredClone(one('HorizontalPodAutoscaler', 'svc-serve'));
  delete (hpa.spec as { maxReplicas?: number }).maxReplicas;
  t.throws(() => validate(hpa), { message: /maxReplicas/ });
  const job = structuredClone(one('Job', 'svc-migrate'));
  (podOf(job).spec as { restartPolicy: unknown }).restartPolicy = ['Never'];
  t.throws(() => validate(job), { message: /restartPolicy must be string/ });
  t.throws(() => validate({ apiVersion: 'extensions/v1beta1', kind: 'Deployment' }), { message: /no schema model/ });
});

test('serve: probes on the named operations port, the API port, a Service, an autoscaler and a disruption budget that find it', (t) => {
  const serve = one('Deployment', 'svc-serve');
  const pod = podOf(serve);
  const container = pod.spec.containers[0];
  t.deepEqual(
    container.ports?.map((p) => [p.name, p.containerPort]),
    [
      ['http', 8000],
      ['ops', 9464],
    ],
  );
  t.deepEqual(container.livenessProbe?.httpGet, { path: '/livez', port: 'ops' });
  t.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'ops' });
  t.deepEqual(container.args, ['serve']);
  t.is((serve.spec as { replicas?: number }).replicas, undefined, 'the autoscaler owns the replica count');
  const selector = (serve.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
  t.true(selects(selector, pod.metadata.labels));

  const service = one('Service', 'svc-serve').spec as { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
  t.true(selects(service.selector, pod.metadata.labels), 'the Service selects the serve pods');
  t.false(selects(service.selector, podOf(one('Deployment', 'svc-worker')).metadata.labels), 'and not the workers');
  for (const port of service.ports)
    t.truthy(
      container.ports?.find((p) => p.name === port.targetPort),
      `Service port ${port.name}`,
    );
  t.deepEqual(service.ports.map((p) => p.port).sort(), [8000, 9464]);

  const hpa = one('HorizontalPodAutoscaler', 'svc-serve').spec as { scaleTargetRef: object; minReplicas: number; maxReplicas: number };
  t.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'svc-serve' });
  t.true(hpa.minReplicas >= 2 && hpa.maxReplicas > hpa.minReplicas);
  const pdb = one('PodDisruptionBudget', 'svc-serve').spec as { selector: { matchLabels: Record<string, string> } };
  t.true(selects(pdb.selector.matchLabels, pod.metadata.labels));
});

test('worker: probes on its operations port, a disruption budget that finds it; the migration Job runs svc db migrate up', (t) => {
  const worker = one('Deployment', 'svc-worker');
  const pod = podOf(worker);
  const container = pod.spec.containers[0];
  t.deepEqual(container.args, ['worker']);
  t.deepEqual(
    container.ports?.map((p) => [p.name, p.containerPort]),
    [['ops', 9464]],
  );
  t.deepEqual(container.livenessProbe?.httpGet, { path: '/livez', port: 'ops' });
  t.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'ops' });
  const pdb = one('PodDisruptionBudget', 'svc-worker').spec as { selector: { matchLabels: Record<string, string> }; minAvailable: number };
  t.true(selects(pdb.selector.matchLabels, pod.metadata.labels));
  t.true((worker.spec as { replicas: number }).replicas > pdb.minAvailable, 'a drain can still evict a worker');
  const job = podOf(one('Job', 'svc-migrate')).spec;
  t.deepEqual(job.containers[0].args, ['db', 'migrate', 'up']);
  t.is(job.restartPolicy, 'Never');
  // the image's operations port, which every probe names
  t.regex(readFileSync(join(projectRoot, 'Dockerfile'), 'utf8'), /SVC_OPS_PORT=9464 SVC_WORKER_OPS_PORT=9464/);
});

test('every probe names a port the container declares; every container is pinned, non-root, read-only, unprivileged, with limits', (t) => {
  for (const workload of workloads()) {
    const spec = podOf(workload).spec;
    t.is(spec.securityContext?.runAsUser, 10001, `${workload.file}: the image's user`);
    for (const c of spec.containers) {
      const where = `${workload.file} ${c.name}`;
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe])
        if (probe)
          t.truthy(
            c.ports?.find((p) => p.name === probe.httpGet?.port || p.containerPort === probe.httpGet?.port),
            `${where}: probe port`,
          );
      t.regex(c.image ?? '', /^[\w./-]+:\d+\.\d+\.\d+$/, `${where}: image pinned to a version`);
      t.like(c.securityContext, { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, where);
      for (const resource of ['cpu', 'memory']) {
        t.truthy(c.resources?.requests?.[resource], `${where}: ${resource} request`);
        t.truthy(c.resources?.limits?.[resource], `${where}: ${resource} limit`);
      }
      // a read-only root: svc writes under /app/.svc (mail files, the file store) and /tmp
      const mounts = (c.volumeMounts ?? []).map((m) => m.mountPath);
      t.true(mounts.includes('/app/.svc') && mounts.includes('/tmp'), `${where}: writable /app/.svc and /tmp`);
      for (const m of c.volumeMounts ?? [])
        t.truthy(
          spec.volumes?.find((v) => v.name === m.name),
          `${where}: volume ${m.name}`,
        );
    }
  }
  // uploads are shared by every serve replica and the worker: one ReadWriteMany claim
  const claim = one('PersistentVolumeClaim', 'svc-files').spec as { accessModes: string[] };
  t.deepEqual(claim.accessModes, ['ReadWriteMany']);
  for (const name of ['svc-serve', 'svc-worker'])
    t.truthy(
      podOf(one('Deployment', name)).spec.volumes?.find((v) => v.persistentVolumeClaim?.claimName === 'svc-files'),
      name,
    );
});

test('secrets only by reference to the documented Secret, whose example values production refuses; the ConfigMap holds settings svc reads', (t) => {
  const example = one('Secret', SECRET_NAME);
  t.is(example.file, 'secret.example.yaml');
  const secretKeys = Object.keys(example.stringData ?? {});
  for (const workload of workloads())
    for (const c of podOf(workload).spec.containers) {
      for (const e of c.env ?? []) {
        t.true(e.value === undefined || !/SECRET|KEY|PASSWORD|DATABASE_URL|SMTP_URL/.test(e.name), `${workload.file}: ${e.name} is written inline`);
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) {
          t.is(ref.name, SECRET_NAME, `${workload.file}: ${e.name}`);
          t.true(secretKeys.includes(ref.key), `${workload.file}: ${ref.key} is in the example Secret`);
        }
      }
      t.deepEqual(
        c.envFrom?.map((f) => f.configMapRef?.name),
        ['svc-config'],
      );
    }
  const config = one('ConfigMap', 'svc-config').data ?? {};
  t.deepEqual(
    Object.keys(config).filter((k) => !(k in ENV_VARS)),
    [],
    'ConfigMap keys the config does not read',
  );
  t.false(
    Object.keys(config).some((k) => /SECRET|ENCRYPTION|DATABASE_URL|SMTP_URL/.test(k)),
    'no secret in the ConfigMap',
  );
  // applied as it is, the example never runs: production refuses its placeholders
  const env = { SVC_ENV: 'production', ...config, ...example.stringData };
  t.throws(() => loadConfig(env), { message: /^Invalid setting SVC_SECRET_KEY: an example or placeholder value/ });
  t.throws(() => loadConfig({ ...env, SVC_SECRET_KEY: randomBytes(48).toString('base64') }), {
    message: /^Invalid setting SVC_ENCRYPTION_KEY: an example or placeholder value/,
  });
});
