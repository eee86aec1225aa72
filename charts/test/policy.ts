import type { Manifest } from "./tools.js";

/**
 * The rules every rendered workload must follow, checked over the parsed manifests:
 * no container that may run as root, resources requested and limited, liveness and
 * readiness probes on every long-running container, and pinned image tags.
 */
export interface Violation {
  workload: string;
  container?: string;
  rule: "non-root" | "privilege" | "resources" | "probes" | "image-tag";
  message: string;
}

interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers?: Container[];
  initContainers?: Container[];
}

interface Container {
  name: string;
  image?: string;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; privileged?: boolean; allowPrivilegeEscalation?: boolean };
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  livenessProbe?: unknown;
  readinessProbe?: unknown;
}

/** The pod template of a workload kind, and whether its containers are meant to keep running. */
function podOf(manifest: Manifest): { pod: PodSpec; longRunning: boolean } | undefined {
  switch (manifest.kind) {
    case "Deployment":
    case "StatefulSet":
    case "DaemonSet":
    case "ReplicaSet":
      return { pod: manifest.spec?.template?.spec ?? {}, longRunning: true };
    case "Job":
      return { pod: manifest.spec?.template?.spec ?? {}, longRunning: false };
    case "CronJob":
      return { pod: manifest.spec?.jobTemplate?.spec?.template?.spec ?? {}, longRunning: false };
    case "Pod":
      return { pod: (manifest.spec ?? {}) as PodSpec, longRunning: true };
    default:
      return undefined;
  }
}

/** A tag or a digest, and not latest: `repo`, `repo:latest` and `host:5000/repo` fail. */
export function pinnedImage(image: string | undefined): boolean {
  if (!image) return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const lastSegment = image.slice(image.lastIndexOf("/") + 1);
  const colon = lastSegment.indexOf(":");
  if (colon < 0) return false;
  const tag = lastSegment.slice(colon + 1);
  return tag.length > 0 && tag !== "latest";
}

export function checkPolicy(manifests: Manifest[]): Violation[] {
  const violations: Violation[] = [];
  for (const manifest of manifests) {
    const found = podOf(manifest);
    if (!found) continue;
    const { pod, longRunning } = found;
    const workload = `${manifest.kind}/${manifest.metadata.name}`;
    const all = [
      ...(pod.initContainers ?? []).map((c) => ({ container: c, init: true })),
      ...(pod.containers ?? []).map((c) => ({ container: c, init: false })),
    ];
    if ((pod.containers ?? []).length === 0) violations.push({ workload, rule: "resources", message: "no containers" });
    for (const { container, init } of all) {
      const at = { workload, container: container.name };
      // The container's own settings override the pod's.
      const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
      const runAsUser = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      if (runAsNonRoot !== true) violations.push({ ...at, rule: "non-root", message: "runAsNonRoot is not true" });
      if (runAsUser === 0) violations.push({ ...at, rule: "non-root", message: "runAsUser is 0 (root)" });
      if (container.securityContext?.privileged === true) violations.push({ ...at, rule: "privilege", message: "privileged" });
      if (container.securityContext?.allowPrivilegeEscalation !== false) {
        violations.push({ ...at, rule: "privilege", message: "allowPrivilegeEscalation is not false" });
      }
      const requests = container.resources?.requests ?? {};
      const limits = container.resources?.limits ?? {};
      for (const key of ["cpu", "memory"]) {
        if (requests[key] === undefined) violations.push({ ...at, rule: "resources", message: `no ${key} request` });
      }
      if (limits.memory === undefined) violations.push({ ...at, rule: "resources", message: "no memory limit" });
      if (longRunning && !init) {
        if (!container.livenessProbe) violations.push({ ...at, rule: "probes", message: "no liveness probe" });
        if (!container.readinessProbe) violations.push({ ...at, rule: "probes", message: "no readiness probe" });
      }
      if (!pinnedImage(container.image)) {
        violations.push({ ...at, rule: "image-tag", message: `image ${container.image ?? "(none)"} has no pinned tag` });
      }
    }
  }
  return violations;
}
