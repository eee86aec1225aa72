import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { skipWhen } from "@transcribe/platform/testing";
import { parseAllDocuments } from "yaml";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
export const chartDir = path.join(repoRoot, "charts/transcribe");
export const schemasDir = path.join(repoRoot, "charts/schemas");
export const productionValues = path.join(chartDir, "values-production.yaml");
/** The Kubernetes version of the vendored schemas (charts/schemas/generate.ts). */
export const KUBE_VERSION = "1.33.0";

/** deploy/k8s-tools.sh's directory first, then PATH. */
function find(tool: string): string | undefined {
  const dir = process.env.K8S_TOOLS_DIR ?? path.join(homedir(), ".cache", "transcribe", "bin");
  if (existsSync(path.join(dir, tool))) return path.join(dir, tool);
  const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export const helm = find("helm");
export const kubeconform = find("kubeconform");

/**
 * Why the chart tests cannot run, if they cannot. Skipped with the reason printed, except
 * with REQUIRE_HELM=1 (CI), where a missing tool is a failure.
 */
export const toolsMissing: string | undefined = (() => {
  const missing = [!helm && "helm", !kubeconform && "kubeconform"].filter(Boolean);
  if (missing.length === 0) return undefined;
  const problem = `${missing.join(" and ")} not found (run deploy/k8s-tools.sh install)`;
  if (process.env.REQUIRE_HELM === "1") throw new Error(`REQUIRE_HELM=1: ${problem}`);
  skipWhen("helm", problem);
  console.warn(`[chart tests] skipping: ${problem}`);
  return problem;
})();

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

export interface Rendered {
  yaml: string;
  manifests: Manifest[];
}

/** `helm template` of the chart; throws with helm's message when it refuses the values. */
export function render(options: { values?: string[]; set?: string[] } = {}): Rendered {
  const args = ["template", "transcribe", chartDir, "--namespace", "transcribe", "--kube-version", KUBE_VERSION];
  for (const file of options.values ?? []) args.push("--values", file);
  for (const pair of options.set ?? []) args.push("--set", pair);
  const result = spawnSync(helm!, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(result.stderr.trim() || `helm template exited ${result.status}`);
  const manifests = parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
  return { yaml: result.stdout, manifests };
}

export function helmLint(values: string[] = []): { ok: boolean; output: string } {
  const args = ["lint", chartDir, "--strict", "--kube-version", KUBE_VERSION, ...values.flatMap((file) => ["--values", file])];
  const result = spawnSync(helm!, args, { encoding: "utf8" });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** kubeconform -strict against the vendored schemas only (no network). */
export function validate(yaml: string): { ok: boolean; output: string } {
  const result = spawnSync(
    kubeconform!,
    [
      "-strict",
      "-summary",
      "-kubernetes-version",
      KUBE_VERSION,
      "-schema-location",
      path.join(schemasDir, "{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"),
      "-schema-location",
      path.join(schemasDir, "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"),
      "-",
    ],
    { input: yaml, encoding: "utf8" },
  );
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}
