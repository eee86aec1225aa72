import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { checkPolicy, pinnedImage } from "./policy.js";
import { helmLint, type Manifest, productionValues, render, toolsMissing, validate } from "./tools.js";

const gpuPoolValues = path.join(import.meta.dirname, "values-gpu-pool.yaml");
const valueSets = [
  { name: "default values", values: [] as string[] },
  { name: "values-production.yaml", values: [productionValues] },
  { name: "the GPU worker pool", values: [gpuPoolValues] },
  { name: "values-production.yaml with the GPU worker pool", values: [productionValues, gpuPoolValues] },
];

type EnvItem = { name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } };
const envOf = (deployment: Manifest) =>
  Object.fromEntries((deployment.spec.template.spec.containers[0].env as EnvItem[]).map((e) => [e.name, e.value ?? `secret:${e.valueFrom?.secretKeyRef.key}`]));

describe.skipIf(toolsMissing)("charts/transcribe", () => {
  for (const { name, values } of valueSets) {
    describe(name, () => {
      let manifests: Manifest[];
      let yaml: string;
      beforeAll(() => {
        ({ manifests, yaml } = render({ values }));
      });

      it("passes helm lint --strict", () => {
        const lint = helmLint(values);
        expect(lint.ok, lint.output).toBe(true);
      });

      it("renders manifests that kubeconform accepts in strict mode against the vendored schemas", () => {
        const result = validate(yaml);
        expect(result.ok, result.output).toBe(true);
        expect(result.output).toMatch(new RegExp(`Summary: ${manifests.length} resources found .* Valid: ${manifests.length}, Invalid: 0, Errors: 0, Skipped: 0`));
      });

      it("passes the policy check: non-root, resources, probes, pinned images", () => {
        expect(checkPolicy(manifests)).toEqual([]);
      });

      it("lets each service accept only its callers, the BFF open, and every workload covered by a policy", () => {
        const policies = manifests.filter((m) => m.kind === "NetworkPolicy");
        const deployments = manifests.filter((m) => m.kind === "Deployment");
        const componentOf = (m: Manifest) => m.metadata.labels!["app.kubernetes.io/component"]!;
        const serviceComponents = new Map(
          manifests.filter((m) => m.kind === "Service").map((s) => [s.metadata.name, s.spec.selector["app.kubernetes.io/component"] as string]),
        );
        const policyFor = (component: string) => policies.find((p) => p.spec.podSelector.matchLabels["app.kubernetes.io/component"] === component);
        const allowedCallers = (component: string) =>
          new Set<string>(
            (policyFor(component)?.spec.ingress ?? []).flatMap((rule: { from?: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }) =>
              (rule.from ?? []).flatMap((peer) => peer.podSelector?.matchLabels["app.kubernetes.io/component"] ?? []),
            ),
          );
        // The calls each service makes, read from the URLs the chart gives it.
        const calls: Array<[string, string]> = [];
        for (const deployment of deployments) {
          for (const item of deployment.spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>) {
            const host = item.value?.match(/^http:\/\/([^:/]+):\d+$/)?.[1];
            const target = host && serviceComponents.get(host);
            if (target) calls.push([componentOf(deployment), target]);
          }
        }
        expect(calls.length).toBeGreaterThan(10);
        for (const [caller, target] of calls) {
          if (target === "bff") continue;
          expect(allowedCallers(target), `${caller} → ${target}`).toContain(caller);
        }
        for (const deployment of deployments) {
          const component = componentOf(deployment);
          const callers = new Set(calls.filter(([, t]) => t === component).map(([c]) => c));
          if (component === "bff") continue;
          // Nobody beyond the actual callers.
          expect([...allowedCallers(component)].sort(), component).toEqual([...callers].sort());
        }
        const bffRules = policyFor("bff")!.spec.ingress;
        expect(bffRules[0].ports).toEqual([{ port: "http", protocol: "TCP" }]);
        const deny = policies.find((p) => p.metadata.name.endsWith("-default-deny"))!;
        expect(deny.spec).toMatchObject({ policyTypes: ["Ingress"] });
        expect(deny.spec.ingress).toBeUndefined();
      });

      it("gives the worker the time its drain and the handing back of jobs need", () => {
        const worker = manifests.find((m) => m.kind === "Deployment" && m.metadata.name.endsWith("-transcription-worker"))!;
        const pod = worker.spec.template.spec;
        const env = Object.fromEntries((pod.containers[0].env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value]));
        const drain = Number(env.WORKER_DRAIN_SECONDS) * 1000;
        const grace = Number(env.SHUTDOWN_GRACE_MS);
        expect(drain).toBeGreaterThan(0);
        expect(grace).toBeGreaterThan(drain);
        // stopOnSignals exits on its own at SHUTDOWN_GRACE_MS + 5 s; the kubelet must not kill it before.
        expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace + 5_000);
        const scaled = manifests.find((m) => m.kind === "ScaledObject")!;
        expect(scaled.spec.scaleTargetRef.name).toBe(worker.metadata.name);
        expect(scaled.spec.triggers[0]).toMatchObject({ type: "postgresql", metadata: { targetQueryValue: env.WORKER_CONCURRENCY } });
        // KEDA owns the replica count.
        expect(worker.spec.replicas).toBeUndefined();
      });

      it("runs migrations as a hook before the rollout, one container per service database", () => {
        const job = manifests.find((m) => m.kind === "Job")!;
        expect(job.metadata.annotations).toMatchObject({ "helm.sh/hook": "pre-install,pre-upgrade" });
        const containers = job.spec.template.spec.containers as Array<{ name: string; command: string[]; env: Array<{ name: string }> }>;
        expect(containers.map((c) => c.name).sort()).toEqual(["auth", "billing", "blog", "export", "media", "notifier", "transcription", "webhooks"]);
        for (const container of containers) {
          expect(container.command).toEqual(["node", "--import", "tsx", "deploy/migrate.ts"]);
          expect(container.env.map((e) => e.name)).toEqual(["SERVICE", "DATABASE_URL", "PGPASSWORD"]);
        }
      });
    });
  }

  describe("the GPU worker pool (decision 0026)", () => {
    it("is off by default: one worker pool taking every job", () => {
      const { manifests } = render();
      expect(manifests.some((m) => m.metadata.name.endsWith("-transcription-gpu-worker"))).toBe(false);
      const worker = manifests.find((m) => m.kind === "Deployment" && m.metadata.name.endsWith("-transcription-worker"))!;
      expect(envOf(worker).WORKER_POOL).toBeUndefined();
      const scaled = manifests.filter((m) => m.kind === "ScaledObject");
      expect(scaled).toHaveLength(1);
      expect(scaled[0]!.spec.triggers[0].metadata.query).not.toContain("pool");
    });

    it("runs on GPU nodes with a GPU each, leases only large-model jobs, and scales on their queue from zero", () => {
      const { manifests } = render({ values: [gpuPoolValues] });
      const deployment = (suffix: string) => manifests.find((m) => m.kind === "Deployment" && m.metadata.name.endsWith(suffix))!;
      const gpu = deployment("-transcription-gpu-worker");
      const cpu = deployment("-transcription-worker");
      const pod = gpu.spec.template.spec;
      expect(pod.containers[0].resources.limits["nvidia.com/gpu"]).toBe(1);
      expect(pod.nodeSelector).toEqual({ "nvidia.com/gpu.present": "true" });
      expect(pod.tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
      expect(envOf(gpu)).toMatchObject({ WORKER_POOL: "gpu", WHISPER_DEVICE: "cuda", SERVICE_KEY: "secret:SERVICE_KEY_TRANSCRIPTION_WORKER" });
      expect(envOf(cpu)).toMatchObject({ WORKER_POOL: "cpu" });
      expect(envOf(cpu).WHISPER_DEVICE).toBeUndefined();
      // The same program as the CPU worker, with the models volume and the drain's grace period.
      expect(pod.containers[0].image).toBe(cpu.spec.template.spec.containers[0].image);
      expect(pod.terminationGracePeriodSeconds).toBe(cpu.spec.template.spec.terminationGracePeriodSeconds);
      expect(pod.volumes.map((v: { name: string }) => v.name)).toContain("models");

      const scaled = manifests.filter((m) => m.kind === "ScaledObject");
      const of = (target: Manifest) => scaled.find((s) => s.spec.scaleTargetRef.name === target.metadata.name)!;
      expect(of(gpu).spec.minReplicaCount).toBe(0);
      expect(of(gpu).spec.triggers[0].metadata.query).toMatch(/ and pool = 'gpu'$/);
      expect(of(cpu).spec.triggers[0].metadata.query).toMatch(/ and pool = 'cpu'$/);
      expect(gpu.spec.replicas).toBeUndefined();
    });

    it("refuses a GPU pool whose workers ask for no GPU", async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "chart-values-"));
      try {
        const file = path.join(dir, "values.yaml");
        await writeFile(
          file,
          stringify({ services: { "transcription-gpu-worker": { enabled: true, resources: { requests: { cpu: "2", memory: "8Gi" }, limits: { memory: "16Gi", "nvidia.com/gpu": 0 } } } } }),
        );
        const lint = helmLint([file]);
        expect(lint.ok).toBe(false);
        expect(lint.output).toContain("/services/transcription-gpu-worker/resources/limits/nvidia.com~1gpu': minimum: got 0, want 1");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe("refuses values it cannot install", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "chart-values-"));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    const refusals: Array<{ name: string; values: unknown; message: RegExp }> = [
      { name: "a misspelt key", values: { services: { bff: { replica: 3 } } }, message: /services\/bff.*replica/s },
      { name: "a replica count that is not a number", values: { services: { media: { replicas: "two" } } }, message: /services\/media\/replicas/ },
      { name: "the latest tag", values: { image: { tag: "latest" } }, message: /image\/tag/ },
      { name: "an unknown event bus", values: { eventBus: { type: "rabbitmq" } }, message: /eventBus\/type/ },
      { name: "a container allowed to run as root", values: { securityContext: { runAsNonRoot: false } }, message: /securityContext\/runAsNonRoot/ },
      { name: "a service without a memory limit", values: { services: { auth: { resources: { limits: { memory: null } } } } }, message: /services\/auth\/resources\/limits/ },
      { name: "a short AUTH_SECRET", values: { secrets: { values: { AUTH_SECRET: "short" } } }, message: /AUTH_SECRET/ },
      { name: "an unknown model to prefetch", values: { models: { prefetch: ["large-v3"] } }, message: /models\/prefetch/ },
    ];
    for (const { name, values, message } of refusals) {
      it(`refuses ${name} (values.schema.json)`, async () => {
        const file = path.join(dir, `${name.replace(/\W+/g, "-")}.yaml`);
        await writeFile(file, stringify(values));
        expect(() => render({ values: [file] })).toThrow(message);
      });
    }

    it("refuses several export replicas without a shared volume, saying why", () => {
      expect(() => render({ set: ["services.export.replicas=2"] })).toThrow(/services\.export: more than one replica needs .*ReadWriteMany/);
      expect(() => render({ set: ["services.export.autoscaling.enabled=true"] })).toThrow(/ReadWriteMany/);
    });

    it("refuses models.download=false without a claim the API can read", () => {
      expect(() => render({ set: ["models.download=false"] })).toThrow(/models\.download=false needs models\.existingClaim/);
    });
  });

  describe("live sessions: the BFF's spool (decision 0040), the live workers' scaling", () => {
    const bffOf = (manifests: Manifest[]) => manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === "bff")!;
    const spoolVolume = (m: Manifest) => (m.spec.template.spec.volumes as Array<Record<string, any>>).find((v) => v.name === "live-spool");

    it("gives each BFF pod a spool directory of its own by default (an emptyDir: a session resumes on its pod)", () => {
      const { manifests } = render();
      const bff = bffOf(manifests);
      expect(envOf(bff).LIVE_SPOOL_DIR).toBe("/var/lib/transcribe/live-spool");
      expect(bff.spec.template.spec.containers[0].volumeMounts).toContainEqual({ name: "live-spool", mountPath: "/var/lib/transcribe/live-spool" });
      expect(spoolVolume(bff)).toEqual({ name: "live-spool", emptyDir: { sizeLimit: "2Gi" } });
      expect(manifests.filter((m) => m.kind === "PersistentVolumeClaim").map((m) => m.metadata.name)).not.toContain("transcribe-live-spool");
    });

    it("with a ReadWriteMany claim, every BFF replica mounts the same spool; kubeconform-strict and policy-clean", () => {
      const { manifests, yaml } = render({ set: ["services.bff.liveSpool.persistence.enabled=true", "services.bff.liveSpool.persistence.storageClass=nfs"] });
      expect(validate(yaml).ok).toBe(true);
      expect(checkPolicy(manifests)).toEqual([]);
      const claim = manifests.find((m) => m.kind === "PersistentVolumeClaim" && m.metadata.name === "transcribe-live-spool")!;
      expect(claim.spec).toMatchObject({ accessModes: ["ReadWriteMany"], storageClassName: "nfs", resources: { requests: { storage: "10Gi" } } });
      expect(spoolVolume(bffOf(manifests))).toEqual({ name: "live-spool", persistentVolumeClaim: { claimName: "transcribe-live-spool" } });
    });

    it("scales the live workers on open sessions per pod (live_sessions_open), with CPU beside it; off: CPU only", () => {
      const hpaOf = (manifests: Manifest[]) =>
        manifests.find((m) => m.kind === "HorizontalPodAutoscaler" && m.metadata.labels!["app.kubernetes.io/component"] === "transcription-live")!;
      const metrics = hpaOf(render().manifests).spec.metrics as Array<Record<string, any>>;
      expect(metrics).toEqual([
        { type: "Pods", pods: { metric: { name: "live_sessions_open" }, target: { type: "AverageValue", averageValue: "800m" } } },
        { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
      ]);
      const off = hpaOf(render({ set: ["services.transcription-live.sessionsMetric.enabled=false"] }).manifests).spec.metrics as Array<Record<string, any>>;
      expect(off.map((m) => m.type)).toEqual(["Resource"]);
    });

    it("refuses a claim that several BFF replicas cannot share, saying why", () => {
      expect(() => render({ set: ["services.bff.liveSpool.persistence.enabled=true", "services.bff.liveSpool.persistence.accessModes={ReadWriteOnce}"] })).toThrow(
        /services\.bff\.liveSpool\.persistence: more than one BFF replica needs accessModes \[ReadWriteMany\]/,
      );
    });
  });

  describe("service RPC (decision 0023)", () => {
    const containerOf = (m: Manifest) => m.spec.template.spec.containers[0];
    const envOf = (m: Manifest) => containerOf(m).env as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>;

    it("gives the BFF the ingress controller's network as its trusted proxies (client addresses from X-Forwarded-For)", async () => {
      const bffOf = (manifests: Manifest[]) => manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === "bff")!;
      const env = (m: Manifest) => Object.fromEntries(envOf(m).map((e) => [e.name, e.value]));
      expect(env(bffOf(render().manifests)).TRUSTED_PROXIES).toBe("10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7");
      const dir = await mkdtemp(path.join(tmpdir(), "chart-proxies-"));
      try {
        const file = path.join(dir, "values.yaml");
        await writeFile(file, stringify({ ingress: { trustedProxies: ["10.42.0.0/16"] } }));
        expect(env(bffOf(render({ values: [file] }).manifests)).TRUSTED_PROXIES).toBe("10.42.0.0/16");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("gives the webhooks service its secret-sealing keys from the Secret, generated once when not given (decision 0032)", () => {
      const { manifests } = render();
      const webhooks = manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === "webhooks")!;
      const ref = envOf(webhooks).find((e) => e.name === "WEBHOOK_SECRET_KEYS")?.valueFrom?.secretKeyRef;
      expect(ref?.key).toBe("WEBHOOK_SECRET_KEYS");
      const secret = manifests.find((m) => m.kind === "Secret" && m.metadata.name === ref!.name)!;
      const keys = Buffer.from((secret as unknown as { data: Record<string, string> }).data.WEBHOOK_SECRET_KEYS!, "base64").toString("utf8");
      expect(keys).toMatch(/^k1:[A-Za-z0-9+/]{43}=$/);
    });

    it("tells the catalog the workers' real memory and the models users may download (decision 0033)", () => {
      const byComponent = (manifests: Manifest[], component: string) => manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === component)!;
      const env = (m: Manifest) => Object.fromEntries(envOf(m).map((e) => [e.name, e.value]));
      const plain = render().manifests;
      // 4Gi = 4294.967296 MB.
      expect(env(byComponent(plain, "transcription")).WHISPER_WORKER_MEMORY_MB).toBe("4294");
      expect(env(byComponent(plain, "transcription-worker")).WHISPER_WORKER_MEMORY_MB).toBe("4294");
      expect(env(byComponent(plain, "transcription")).WHISPER_USER_DOWNLOADS).toBe("whisper-tiny,whisper-tiny.en,whisper-base,whisper-base.en");
      // With the GPU pool the API allows what the larger pool can hold; each worker its own.
      const gpu = render({ values: [gpuPoolValues] }).manifests;
      expect(Number(env(byComponent(gpu, "transcription")).WHISPER_WORKER_MEMORY_MB)).toBeGreaterThan(4294);
      expect(env(byComponent(gpu, "transcription-worker")).WHISPER_WORKER_MEMORY_MB).toBe("4294");
    });

    it("probes the services with Kubernetes' grpc probes and gives each its own key", () => {
      const { manifests } = render();
      for (const deployment of manifests.filter((m) => m.kind === "Deployment")) {
        const component = deployment.metadata.labels!["app.kubernetes.io/component"]!;
        const container = containerOf(deployment);
        const key = envOf(deployment).find((e) => e.name === "SERVICE_KEY")?.valueFrom?.secretKeyRef;
        expect(key, component).toEqual({ name: "transcribe-service-keys", key: `SERVICE_KEY_${component.replace(/-/g, "_").toUpperCase()}` });
        if (component === "bff") {
          expect(container.readinessProbe.httpGet.path).toBe("/readyz");
          continue;
        }
        const port = container.ports[0].containerPort;
        expect(container.readinessProbe.grpc, component).toEqual({ port });
        expect(container.livenessProbe.grpc, component).toEqual({ port, service: "liveness" });
        expect(envOf(deployment).find((e) => e.name === "GRPC_REFLECTION")?.value, component).toBe("false");
      }
    });

    it("with rpc.tls: certificates mounted, https URLs, HTTPS probes; kubeconform-strict and policy-clean", () => {
      const { manifests, yaml } = render({
        set: ["rpc.tls.enabled=true", "rpc.tls.secretName=transcribe-rpc-tls", "rpc.reflection=true", "rpc.grants={reports=transcribe.transcription.v1.TranscriptionService/GetTranscription}"],
      });
      const result = validate(yaml);
      expect(result.ok, result.output).toBe(true);
      expect(checkPolicy(manifests)).toEqual([]);
      const media = manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === "media")!;
      const env = Object.fromEntries(envOf(media).map((e) => [e.name, e.value]));
      expect(env).toMatchObject({ RPC_TLS_CERT_FILE: "/etc/transcribe/tls/tls.crt", RPC_TLS_KEY_FILE: "/etc/transcribe/tls/tls.key", GRPC_REFLECTION: "true" });
      expect(env.RPC_GRANTS).toBe("reports=transcribe.transcription.v1.TranscriptionService/GetTranscription");
      expect(containerOf(media).readinessProbe.httpGet).toMatchObject({ path: "/readyz", scheme: "HTTPS" });
      const bff = manifests.find((m) => m.kind === "Deployment" && m.metadata.labels!["app.kubernetes.io/component"] === "bff")!;
      expect(envOf(bff).find((e) => e.name === "MEDIA_URL")?.value).toMatch(/^https:\/\/transcribe-media:\d+$/);
      expect(() => render({ set: ["rpc.tls.enabled=true"] })).toThrow(/rpc\.tls\.secretName is required/);
    });
  });

  it("kubeconform with the vendored schemas catches unknown fields and wrong types", () => {
    const { manifests } = render();
    const deployment = structuredClone(manifests.find((m) => m.kind === "Deployment")!);
    deployment.spec.replica = 2;
    const scaled = structuredClone(manifests.find((m) => m.kind === "ScaledObject")!);
    scaled.spec.maxReplicaCount = "ten";
    const result = validate([deployment, scaled].map((m) => `---\n${stringify(m)}`).join(""));
    expect(result.ok).toBe(false);
    expect(result.output).toContain("additional properties 'replica' not allowed");
    expect(result.output).toMatch(/maxReplicaCount.*want integer/);
  });
});

describe("the policy check", () => {
  const deployment = (): Manifest => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "svc" },
    spec: {
      template: {
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 1000 },
          initContainers: [
            { name: "init", image: "x/init:1.0", securityContext: { allowPrivilegeEscalation: false }, resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } } },
          ],
          containers: [
            {
              name: "app",
              image: "x/app:1.2.3",
              securityContext: { allowPrivilegeEscalation: false },
              resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } },
              livenessProbe: { httpGet: { path: "/healthz", port: 80 } },
              readinessProbe: { httpGet: { path: "/readyz", port: 80 } },
            },
          ],
        },
      },
    },
  });

  it("accepts a compliant workload and does not ask init containers or Jobs for probes", () => {
    expect(checkPolicy([deployment()])).toEqual([]);
    const job = deployment();
    job.kind = "Job";
    delete job.spec.template.spec.containers[0].livenessProbe;
    delete job.spec.template.spec.containers[0].readinessProbe;
    expect(checkPolicy([job])).toEqual([]);
  });

  it("names each breach: root, privilege escalation, missing resources, missing probes, unpinned images", () => {
    const bad = deployment();
    const app = bad.spec.template.spec.containers[0];
    app.securityContext = { runAsUser: 0 };
    delete app.resources.limits;
    delete app.readinessProbe;
    app.image = "x/app:latest";
    bad.spec.template.spec.initContainers[0].image = "x/init";
    const rules = checkPolicy([bad]).map((v) => `${v.container}: ${v.rule}: ${v.message}`);
    expect(rules).toEqual([
      "init: image-tag: image x/init has no pinned tag",
      "app: non-root: runAsUser is 0 (root)",
      "app: privilege: allowPrivilegeEscalation is not false",
      "app: resources: no memory limit",
      "app: probes: no readiness probe",
      "app: image-tag: image x/app:latest has no pinned tag",
    ]);
    const noNonRoot = deployment();
    delete noNonRoot.spec.template.spec.securityContext.runAsNonRoot;
    expect(checkPolicy([noNonRoot]).map((v) => v.message)).toEqual(["runAsNonRoot is not true", "runAsNonRoot is not true"]);
  });

  it("tells pinned image references from moving ones", () => {
    expect(pinnedImage("transcribe/bff:0.1.0")).toBe(true);
    expect(pinnedImage("localhost:5000/transcribe/bff:abc123")).toBe(true);
    expect(pinnedImage(`transcribe/bff@sha256:${"a".repeat(64)}`)).toBe(true);
    expect(pinnedImage("transcribe/bff")).toBe(false);
    expect(pinnedImage("localhost:5000/transcribe/bff")).toBe(false);
    expect(pinnedImage("transcribe/bff:latest")).toBe(false);
  });
});
