import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { Redis } from 'ioredis';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { CONFIG_VARS } from '../../src/config-vars.js';
import { pngSize } from '../helpers/chromium.js';
import { dropDatabase, freshDatabase, TEST_DATABASE_URL } from '../helpers/databases.js';
import { S3RVER_CREDENTIALS, startS3rver, type TestS3 } from '../helpers/s3rver.js';
import { freeLowPort, podman, ROOT, run, waitFor } from './podman.js';

/**
 * deploy/k8s (docs/deploy.md, "Kubernetes"): every object that kustomize renders from the base,
 * the example overlay, the podman overlay and the KEDA component validates against Kubernetes' own
 * OpenAPI schemas (kubernetes-models 4, the last major that runs on Node 20) and KEDA's CRDs
 * (@kubernetes-models/keda); the settings they name are webcap's and parse; then `podman kube
 * play` runs the API and worker Deployments of the podman overlay from the built image.
 */

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

/** The validator of each kind the manifests use; a kind missing here fails the test. */
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/Namespace': Namespace,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

const K8S = path.join(ROOT, 'deploy/k8s');

/** `kubectl kustomize DIR` (kustomize v5, built into kubectl), as objects. */
async function kustomize(dir: string): Promise<K8sObject[]> {
  const rendered = await run('kubectl', ['kustomize', dir]);
  if (rendered.code !== 0)
    throw new Error(`kubectl kustomize ${dir} exited ${rendered.code}: ${rendered.stderr}`);
  return parseAllDocuments(rendered.stdout).map((document) => document.toJS() as K8sObject);
}

/** The base with the KEDA component, through a kustomization of the test's own (paths must be relative). */
async function kustomizeWithKeda(): Promise<K8sObject[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-k8s-'));
  try {
    const to = (target: string) => path.relative(dir, path.join(K8S, target));
    fs.writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      stringify({ resources: [to('base')], components: [to('components/keda')] }),
    );
    return await kustomize(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function find(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

// The shapes these tests read, narrowed from the validated objects.
interface Probe {
  httpGet: { path: string; port: string };
}
interface Container {
  image: string;
  args: string[];
  env?: { name: string; value: string }[];
  ports: { name: string; containerPort: number; hostPort?: number }[];
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: {
    allowPrivilegeEscalation: boolean;
    readOnlyRootFilesystem: boolean;
    capabilities: { drop: string[]; add?: string[] };
  };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot: boolean; runAsUser: number };
  containers: Container[];
  volumes: { name: string; emptyDir: { medium?: string; sizeLimit?: string } }[];
}
const podSpec = (deployment: K8sObject) =>
  (deployment as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
const configData = (objects: readonly K8sObject[]) =>
  (find(objects, 'ConfigMap', 'webcap-config') as unknown as { data: Record<string, string> }).data;
const secretData = (objects: readonly K8sObject[]) =>
  (find(objects, 'Secret', 'webcap-secrets') as unknown as { stringData: Record<string, string> }).stringData;

describe('the Kubernetes manifests', () => {
  let rendered: Record<'base' | 'example' | 'podman' | 'keda', K8sObject[]>;

  beforeAll(async () => {
    rendered = {
      base: await kustomize(path.join(K8S, 'base')),
      example: await kustomize(path.join(K8S, 'overlays/example')),
      podman: await kustomize(path.join(K8S, 'overlays/podman')),
      keda: await kustomizeWithKeda(),
    };
  });

  it("validate against Kubernetes' and KEDA's schemas", () => {
    for (const [name, objects] of Object.entries(rendered)) {
      expect(objects.length, name).toBeGreaterThan(0);
      for (const object of objects) {
        const Model = MODELS[`${object.apiVersion}/${object.kind}`];
        expect(Model, `${name}: ${object.apiVersion} ${object.kind}`).toBeDefined();
        expect(() => new (Model as NonNullable<typeof Model>)(object as never).validate()).not.toThrow();
      }
    }
    expect(rendered.base.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ConfigMap/webcap-config',
      'Deployment/webcap-api',
      'Deployment/webcap-worker',
      'HorizontalPodAutoscaler/webcap-api',
      'HorizontalPodAutoscaler/webcap-worker',
      'PodDisruptionBudget/webcap-api',
      'PodDisruptionBudget/webcap-worker',
      'Secret/webcap-secrets',
      'Service/webcap',
    ]);
  });

  it('a schema violation fails validation (the check is live)', () => {
    const api = structuredClone(find(rendered.base, 'Deployment', 'webcap-api'));
    podSpec(api).containers[0] = { ...podSpec(api).containers[0], imagePullPolicy: 'Sometimes' } as Container;
    expect(() => new Deployment(api as never).validate()).toThrow(/imagePullPolicy/);
    const limits = structuredClone(find(rendered.base, 'Deployment', 'webcap-api'));
    (podSpec(limits).containers[0] as Container).resources.limits.memory = '2 GB';
    expect(() => new Deployment(limits as never).validate()).toThrow(/memory/);
  });

  it("name every setting webcap reads, each once, with values webcap's config accepts", () => {
    const config = configData(rendered.base);
    const secret = secretData(rendered.base);
    const perDeployment = ['webcap-api', 'webcap-worker'].map(
      (name) => podSpec(find(rendered.base, 'Deployment', name)).containers[0]?.env ?? [],
    );
    const named = [
      ...Object.keys(config),
      ...Object.keys(secret),
      ...new Set(perDeployment.flat().map((variable) => variable.name)),
    ];
    expect(named.sort()).toEqual(CONFIG_VARS.map((variable) => variable.name).sort());
    // Each Deployment's environment as Kubernetes makes it (env over envFrom) parses, with the
    // Secret's placeholders; the example overlay's too.
    for (const objects of [rendered.base, rendered.example]) {
      for (const name of ['webcap-api', 'webcap-worker']) {
        const env = podSpec(find(objects, 'Deployment', name)).containers[0]?.env ?? [];
        const vars = {
          ...configData(objects),
          ...secretData(objects),
          ...Object.fromEntries(env.map((e) => [e.name, e.value])),
        };
        expect(() => loadConfig(vars)).not.toThrow();
      }
    }
    expect(loadConfig({ ...config, ...secret }).database.kind).toBe('postgres');
  });

  it('drain within the grace period, leave the Service when /readyz fails, and run confined', () => {
    const config = configData(rendered.base);
    const api = podSpec(find(rendered.base, 'Deployment', 'webcap-api'));
    const worker = podSpec(find(rendered.base, 'Deployment', 'webcap-worker'));
    // docs/drain.md: the drain delay, the larger of the calls' grace and the jobs' grace plus the
    // hand-back bound, then 10 s to close; the kubelet's SIGKILL must come after all of it.
    const setting = (name: string) =>
      Number(config[name] || (CONFIG_VARS.find((v) => v.name === name)?.default as number));
    const stopMs =
      setting('SHUTDOWN_DRAIN_DELAY_MS') +
      Math.max(setting('SHUTDOWN_GRACE_MS'), setting('JOB_SHUTDOWN_GRACE_MS') + 10_000) +
      10_000;
    expect(setting('SHUTDOWN_DRAIN_DELAY_MS')).toBeGreaterThan(0);
    expect(api.terminationGracePeriodSeconds * 1000).toBeGreaterThan(stopMs);
    expect(worker.terminationGracePeriodSeconds * 1000).toBeGreaterThan(stopMs);
    for (const [spec, role, port] of [
      [api, 'serve', 'http'],
      [worker, 'worker', 'health'],
    ] as const) {
      const container = spec.containers[0] as Container;
      expect(container.args).toEqual([role]);
      expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port });
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'], add: ['SYS_CHROOT'] },
      });
      expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
      const mounts = Object.fromEntries(container.volumeMounts.map((m) => [m.mountPath, m.name]));
      const volumes = Object.fromEntries(spec.volumes.map((v) => [v.name, v.emptyDir]));
      expect(volumes[mounts['/dev/shm'] as string]?.medium).toBe('Memory');
      expect(volumes[mounts['/tmp'] as string]).toBeDefined();
      expect(volumes[mounts['/data'] as string]).toBeDefined();
    }
    const service = find(rendered.base, 'Service', 'webcap') as unknown as { spec: { selector: object } };
    expect(service.spec.selector).toEqual({
      'app.kubernetes.io/name': 'webcap',
      'app.kubernetes.io/component': 'api',
    });
  });

  it("scale the worker with KEDA on BullMQ's wait list of the configured queue, instead of on CPU", () => {
    const scaled = find(rendered.keda, 'ScaledObject', 'webcap-worker') as unknown as {
      spec: {
        scaleTargetRef: { name: string };
        triggers: { type: string; metadata: Record<string, string> }[];
      };
    };
    expect(scaled.spec.scaleTargetRef.name).toBe('webcap-worker');
    expect(scaled.spec.triggers[0]?.type).toBe('redis');
    expect(scaled.spec.triggers[0]?.metadata.listName).toBe(
      `bull:${configData(rendered.keda).JOB_QUEUE_NAME}:wait`,
    );
    expect(
      rendered.keda.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.metadata.name),
    ).toEqual(['webcap-api']);
  });

  it('leave the number of pods of every autoscaled Deployment to its autoscaler', () => {
    for (const [name, objects] of Object.entries(rendered)) {
      const scaled = objects
        .filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject')
        .map((o) => (o as unknown as { spec: { scaleTargetRef: { kind?: string; name: string } } }).spec)
        .filter(({ scaleTargetRef }) => (scaleTargetRef.kind ?? 'Deployment') === 'Deployment')
        .map(({ scaleTargetRef }) => scaleTargetRef.name);
      // Both Deployments are autoscaled in every render (podman's renders the HPAs and plays none).
      expect(new Set(scaled), name).toEqual(new Set(['webcap-api', 'webcap-worker']));
      for (const target of scaled) {
        const spec = (find(objects, 'Deployment', target) as unknown as { spec: Record<string, unknown> })
          .spec;
        expect(
          spec.replicas,
          `${name}: ${target} sets replicas, which every apply puts back`,
        ).toBeUndefined();
      }
    }
  });

  it('example overlay: its namespace, image, autoscaling bounds, Ingress with TLS and settings', () => {
    const { example } = rendered;
    expect(new Set(example.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace))).toEqual(
      new Set(['webcap']),
    );
    const api = find(example, 'Deployment', 'webcap-api');
    expect(podSpec(api).containers[0]).toMatchObject({ image: 'registry.example.com/webcap:0.1.0' });
    const hpa = (name: string) =>
      (find(example, 'HorizontalPodAutoscaler', name) as unknown as { spec: { minReplicas: number } }).spec;
    expect(hpa('webcap-api').minReplicas).toBe(3);
    expect(hpa('webcap-worker').minReplicas).toBe(2);

    const config = configData(example);
    const host = new URL(config.PUBLIC_BASE_URL ?? '').host;
    expect(config.PUBLIC_BASE_URL).toBe('https://capture.example.com');
    // Behind the Ingress controller, one hop: its X-Forwarded-Proto makes the session cookie Secure.
    expect(loadConfig({ TRUST_PROXY: config.TRUST_PROXY }).trustProxy).toBe(1);
    const ingress = find(example, 'Ingress', 'webcap') as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: {
        tls: { hosts: string[]; secretName: string }[];
        rules: {
          host: string;
          http: { paths: { path: string; backend: { service: { name: string; port: { name: string } } } }[] };
        }[];
      };
    };
    expect(ingress.spec.tls).toEqual([{ hosts: [host], secretName: 'webcap-tls' }]);
    expect(ingress.spec.rules.map((rule) => rule.host)).toEqual([host]);
    const service = find(example, 'Service', 'webcap') as unknown as { spec: { ports: { name: string }[] } };
    for (const { backend } of ingress.spec.rules.flatMap((rule) => rule.http.paths)) {
      expect(backend.service.name).toBe('webcap');
      expect(service.spec.ports.map((port) => port.name)).toContain(backend.service.port.name);
    }
    expect(ingress.metadata.annotations['cert-manager.io/cluster-issuer']).toBeDefined();
    expect(config.BROWSER_CONCURRENCY).toBe(configData(rendered.base).BROWSER_CONCURRENCY);
  });
});

/**
 * The podman overlay run as `podman kube play` runs it: the API Deployment first, then the worker
 * Deployment, on PostgreSQL, Redis and s3rver of the host (the pods reach the host's loopback at
 * 10.0.2.2 through slirp4netns; the test reaches the API through its hostPort). What the test
 * changes in the rendered objects is the machine's: addresses, ports, a schema and a queue of its
 * own. Two of podman 4.3's gaps are bridged here: a Secret in the played file becomes a podman
 * secret that podman then cannot read, so the test makes that secret itself in the form podman
 * reads (a JSON map of base64 values); and probes are not run (the liveness probe becomes a
 * healthcheck that needs systemd), so the test polls /readyz itself.
 */
describe('podman kube play of the API and worker Deployments', () => {
  const IMAGE = process.env.WEBCAP_TEST_IMAGE ?? 'webcap:dev';
  const HOST_FROM_POD = '10.0.2.2';
  const NETWORK = 'slirp4netns:allow_host_loopback=true';
  const suffix = randomBytes(4).toString('hex');
  const key = `wc_test_k8s_${randomBytes(12).toString('hex')}`;
  const queueName = `webcap-k8s-${suffix}`;
  const secretName = `webcap-secrets-${suffix}`;
  const database = freshDatabase('postgres');
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let workDir: string;
  const played: string[] = [];
  let site: Server;
  let sitePort: number;
  let s3: TestS3;
  let apiPort: number;
  let workerPort: number;
  let api: string;
  let startedAt: number;
  /** The color the page paints, read back from the screenshot's pixels. */
  const BACKGROUND = { r: 0x22, g: 0x66, b: 0xcc };

  /** A URL of the host's loopback as a pod reaches it. */
  const fromPod = (url: string) =>
    url.replace(/\/\/([^@/]*@)?(127\.0\.0\.1|localhost)(?=[:/])/, `//$1${HOST_FROM_POD}`);

  beforeAll(async () => {
    startedAt = Date.now();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webcap-k8s-play-'));
    const engine = await run('bash', ['scripts/k8s-engine.sh'], 5 * 60_000);
    if (engine.code !== 0) throw new Error(`scripts/k8s-engine.sh: ${engine.stdout}${engine.stderr}`);
    if (process.env.WEBCAP_TEST_IMAGE === undefined) {
      const built = await run('bash', ['scripts/container-image.sh'], 25 * 60_000);
      if (built.code !== 0)
        throw new Error(`image build failed: ${built.stdout.slice(-4000)}${built.stderr}`);
    }
    site = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html><body style="margin:0;background:rgb(${BACKGROUND.r},${BACKGROUND.g},${BACKGROUND.b})">` +
          '<h1>webcap on podman kube play</h1></body></html>',
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    s3 = await startS3rver(['webcap-k8s']);
    apiPort = await freeLowPort();
    workerPort = await freeLowPort();
    api = `http://127.0.0.1:${apiPort}`;

    const objects = await kustomize(path.join(K8S, 'overlays/podman'));
    const config = configData(objects);
    Object.assign(config, {
      PUBLIC_BASE_URL: api,
      DATABASE_SCHEMA: database.kind === 'postgres' ? database.schema : '',
      BLOB_S3_BUCKET: 'webcap-k8s',
      BLOB_S3_ENDPOINT: fromPod(s3.endpoint),
      JOB_QUEUE_NAME: queueName,
      WEBCAP_ALLOW_PRIVATE: `${HOST_FROM_POD}/32:${sitePort}`,
      // Two pods on a 2-core machine that runs the tests too.
      BROWSER_CONCURRENCY: '1',
      CONTENT_THREADS: '1',
    });
    const secret = {
      ...secretData(objects),
      DATABASE_URL: fromPod(TEST_DATABASE_URL),
      REDIS_URL: fromPod(redisUrl),
      BLOB_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      BLOB_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      WEBCAP_BOOTSTRAP_KEY: key,
    };
    const secretFile = path.join(workDir, 'secret.json');
    fs.writeFileSync(
      secretFile,
      JSON.stringify(
        Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
      ),
    );
    await podman(['secret', 'create', secretName, secretFile]);
    for (const [name, port] of [
      ['webcap-api', apiPort],
      ['webcap-worker', workerPort],
    ] as const) {
      const deployment = find(objects, 'Deployment', name);
      // Names of this run's own: podman's pods and secrets are the machine's, not a namespace's.
      deployment.metadata.name = `${name}-${suffix}`;
      const container = podSpec(deployment).containers[0] as Container & {
        envFrom: { secretRef?: { name: string } }[];
      };
      for (const source of container.envFrom)
        if (source.secretRef !== undefined) source.secretRef.name = secretName;
      container.image = IMAGE;
      (container.ports[0] as { hostPort?: number }).hostPort = port;
      fs.writeFileSync(
        path.join(workDir, `${name}.yaml`),
        [find(objects, 'ConfigMap', 'webcap-config'), deployment].map((o) => stringify(o)).join('---\n'),
      );
    }
  }, 30 * 60_000);

  afterAll(async () => {
    for (const file of played) await run('podman', ['kube', 'down', file]);
    await run('podman', ['secret', 'rm', secretName]);
    if (workDir !== undefined) fs.rmSync(workDir, { recursive: true, force: true });
    await dropDatabase(database);
    await s3?.close();
    await new Promise((resolve) => site?.close(resolve));
    console.log(`k8s.test.ts: podman kube play part took ${Math.round((Date.now() - startedAt) / 1000)} s`);
  });

  async function play(name: string): Promise<void> {
    const file = path.join(workDir, `${name}.yaml`);
    played.push(file);
    await podman(['kube', 'play', `--network=${NETWORK}`, file]);
  }

  async function ready(base: string): Promise<unknown> {
    return waitFor(`${base}/readyz`, async () => {
      const res = await fetch(`${base}/readyz`).catch(() => undefined);
      return res?.status === 200 ? await res.json() : undefined;
    });
  }

  async function expectPng(res: Response, width: number, height: number): Promise<void> {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = new Uint8Array(await res.arrayBuffer());
    expect(pngSize(png)).toEqual({ width, height });
    const { data } = await sharp(png)
      .extract({ left: width - 10, top: height - 10, width: 1, height: 1 })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([...data]).toEqual([BACKGROUND.r, BACKGROUND.g, BACKGROUND.b]);
  }

  const target = () => encodeURIComponent(`http://${HOST_FROM_POD}:${sitePort}/`);

  it('the API pod becomes ready and takes a capture (with the ad blocker, which caches in an emptyDir)', async () => {
    await play('webcap-api');
    expect(await ready(api)).toEqual({ status: 'ready', browser: 'running', queue: 'bullmq' });
    const res = await fetch(
      `${api}/v1/capture?url=${target()}&viewport_width=800&viewport_height=600&remove_ads=true`,
      {
        headers: { 'x-api-key': key },
      },
    );
    await expectPng(res, 800, 600);
  });

  it("queues an async capture on BullMQ's wait list (KEDA's key), which the worker pod runs", async () => {
    const res = await fetch(
      `${api}/v1/capture?url=${target()}&viewport_width=640&viewport_height=480&is_async=true`,
      {
        headers: { 'x-api-key': key },
      },
    );
    expect(res.status).toBe(202);
    const { job_id: jobId } = (await res.json()) as { job_id: string };
    // The API runs no jobs (JOB_CONCURRENCY 0): the job waits in the list the ScaledObject watches.
    const redis = new Redis(redisUrl);
    try {
      expect(await redis.lrange(`bull:${queueName}:wait`, 0, -1)).toEqual([jobId]);
    } finally {
      redis.disconnect();
    }
    await play('webcap-worker');
    expect(await ready(`http://127.0.0.1:${workerPort}`)).toMatchObject({ status: 'ready', queue: 'bullmq' });
    const job = await waitFor('the job to end', async () => {
      const record = (await (
        await fetch(`${api}/jobs/${jobId}`, { headers: { 'x-api-key': key } })
      ).json()) as { status: string; result: { screenshot_url?: string } | null };
      return record.status === 'completed' || record.status === 'failed' ? record : undefined;
    });
    expect(job.status).toBe('completed');
    const url = job.result?.screenshot_url ?? '';
    expect(url.startsWith(`${api}/`)).toBe(true);
    // Written to the bucket by the worker pod, served by the API pod.
    await expectPng(await fetch(url), 640, 480);
  });

  it('podman kube down removes the pods', async () => {
    for (const file of played.splice(0)) await podman(['kube', 'down', file]);
    const pods = await podman(['pod', 'ps', '--format', '{{.Name}}']);
    expect(pods.split('\n').filter((name) => name.endsWith(`-${suffix}-pod-0`))).toEqual([]);
  });
});
