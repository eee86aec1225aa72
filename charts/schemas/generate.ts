/**
 * Rebuilds the JSON schemas kubeconform validates the rendered chart with, so the check
 * runs offline. Kubernetes' own kinds come from the `kubernetes-validate` package on PyPI
 * (schemas generated from Kubernetes' OpenAPI, one directory per minor version); KEDA's
 * from the CRDs in its Go module. Only the kinds the chart renders are kept, each made
 * standalone (its definitions inlined) in the layout of kubeconform's default locations.
 *
 *   node --import tsx charts/schemas/generate.ts     (needs python3 with pip, and go)
 *
 * Bump the versions below, run it, and commit the result.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";

export const KUBERNETES_VERSION = "1.33.0";
const KUBERNETES_VALIDATE_VERSION = "1.37.0";
const KEDA_MODULE = "github.com/kedacore/keda/v2";
const KEDA_VERSION = "v2.21.0";

/** File stems (kind-group-version) of every built-in kind the chart renders. */
export const KUBERNETES_KINDS = [
  "configmap-v1",
  "secret-v1",
  "service-v1",
  "serviceaccount-v1",
  "persistentvolumeclaim-v1",
  "deployment-apps-v1",
  "job-batch-v1",
  "horizontalpodautoscaler-autoscaling-v2",
  "poddisruptionbudget-policy-v1",
  "networkpolicy-networking-v1",
  "ingress-networking-v1",
];
const KEDA_CRDS = ["keda.sh_scaledobjects.yaml", "keda.sh_triggerauthentications.yaml"];

const here = import.meta.dirname;
type Json = Record<string, unknown>;

function run(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

/** Copies the kind's schema and only the definitions it reaches, with references made local. */
export function standalone(kind: Json, definitions: Record<string, unknown>): Json {
  const needed = new Map<string, unknown>();
  const localise = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(localise);
    if (node === null || typeof node !== "object") return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const name = value.split("#/$defs/")[1];
        if (!name) throw new Error(`unexpected reference ${value}`);
        if (!needed.has(name)) {
          const definition = definitions[name];
          if (definition === undefined) throw new Error(`no definition ${name}`);
          needed.set(name, null);
          needed.set(name, localise(definition));
        }
        out[key] = `#/$defs/${name}`;
      } else {
        out[key] = localise(value);
      }
    }
    return out;
  };
  const root = localise(kind) as Json;
  return { ...root, $defs: Object.fromEntries([...needed.entries()].sort(([a], [b]) => a.localeCompare(b))) };
}

/**
 * A CRD version's openAPIV3Schema as a strict JSON schema, the way kubeconform's
 * openapi2jsonschema does it: objects with listed properties accept no others, and
 * int-or-string fields accept both.
 */
export function strictCrdSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictCrdSchema);
  if (node === null || typeof node !== "object") return node;
  const source = node as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "x-kubernetes-int-or-string") continue;
    out[key] = strictCrdSchema(value);
  }
  if (source["x-kubernetes-int-or-string"] === true) {
    delete out.type;
    out.oneOf = [{ type: "string" }, { type: "integer" }];
  }
  if (out.properties && out.additionalProperties === undefined && source["x-kubernetes-preserve-unknown-fields"] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

function kubernetesSchemas(work: string, target: string): void {
  run("python3", ["-m", "pip", "download", "--quiet", "--no-deps", `kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}`, "-d", work]);
  const wheel = path.join(work, `kubernetes_validate-${KUBERNETES_VALIDATE_VERSION}-py3-none-any.whl`);
  const source = `kubernetes_validate/kubernetes-json-schema/v${KUBERNETES_VERSION}-local-strict`;
  run("python3", ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[3]) for n in z.namelist() if n.startswith(sys.argv[2] + '/')]", wheel, source, work]);
  const dir = path.join(work, source);
  const definitions = (JSON.parse(readFileSync(path.join(dir, "_definitions.json"), "utf8")) as { $defs: Record<string, unknown> }).$defs;
  const out = path.join(target, `v${KUBERNETES_VERSION}-standalone-strict`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const stem of KUBERNETES_KINDS) {
    const kind = JSON.parse(readFileSync(path.join(dir, `${stem}.json`), "utf8")) as Json;
    writeFileSync(path.join(out, `${stem}.json`), `${JSON.stringify(standalone(kind, definitions), null, 1)}\n`);
  }
}

function kedaSchemas(target: string): void {
  const module = JSON.parse(run("go", ["mod", "download", "-json", `${KEDA_MODULE}@${KEDA_VERSION}`])) as { Dir: string };
  for (const file of KEDA_CRDS) {
    for (const document of parseAllDocuments(readFileSync(path.join(module.Dir, "config/crd/bases", file), "utf8"))) {
      const crd = document.toJS() as {
        spec: { group: string; names: { kind: string }; versions: Array<{ name: string; schema: { openAPIV3Schema: Json } }> };
      };
      const out = path.join(target, crd.spec.group);
      mkdirSync(out, { recursive: true });
      for (const version of crd.spec.versions) {
        const schema = strictCrdSchema(version.schema.openAPIV3Schema);
        writeFileSync(path.join(out, `${crd.spec.names.kind.toLowerCase()}_${version.name}.json`), `${JSON.stringify(schema, null, 1)}\n`);
      }
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(here, "generate.ts")) {
  const work = mkdtempSync(path.join(tmpdir(), "chart-schemas-"));
  try {
    kubernetesSchemas(work, here);
    kedaSchemas(here);
    process.stdout.write(`schemas for Kubernetes ${KUBERNETES_VERSION} and KEDA ${KEDA_VERSION} written to ${here}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
