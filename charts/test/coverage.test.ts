import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { generateServiceKeys } from "@transcribe/platform";
import { knownEntryPoint, processSchema, requiredVariables } from "./service-env.js";
import { type Manifest, productionValues, render, repoRoot, toolsMissing } from "./tools.js";

interface Artifact {
  image: string;
  docker: { dockerfile: string; buildArgs: { SERVICE: string; SERVICE_ENTRY?: string; FLAVOR?: string } };
}

const skaffold = parse(readFileSync(path.join(repoRoot, "skaffold.yaml"), "utf8")) as {
  build: { artifacts: Artifact[] };
  deploy: { helm: { releases: Array<{ chartPath: string; setValueTemplates: Record<string, string> }> } };
};
const artifacts = skaffold.build.artifacts;

/** Deployable workspaces: every services/* with a main.ts; the platform is a library. */
const workspaces = readdirSync(path.join(repoRoot, "services"))
  .filter((name) => name !== "platform" && existsSync(path.join(repoRoot, "services", name, "src/main.ts")))
  .sort();

const entryOf = (artifact: Artifact) => artifact.docker.buildArgs.SERVICE_ENTRY ?? "src/main.ts";
const repository = (image: string) => image.slice(0, image.lastIndexOf(":")).split("/").slice(-2).join("/");

/**
 * Each Deployment's environment as its process would see it: plain values as rendered,
 * required Secret keys from the Secret (the chart's, or with existingSecret one holding
 * the keys docs/deploy.md tells you to create); optional Secret keys absent, their worst case.
 */
function environmentOf(deployment: Manifest, secrets: Record<string, string>): { env: Record<string, string>; refs: string[] } {
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  const refs: string[] = [];
  for (const item of container.env as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string; optional?: boolean } } }>) {
    if (item.value !== undefined) env[item.name] = item.value;
    const ref = item.valueFrom?.secretKeyRef;
    if (ref && !ref.optional) {
      refs.push(ref.key);
      const value = secrets[ref.key];
      if (value !== undefined) env[item.name] = value;
    }
  }
  return { env, refs };
}

/** What docs/deploy.md has you put in an existing Secret: the required keys. */
const existingSecretExample: Record<string, string> = {
  PGPASSWORD: "a-database-password",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789",
  STORAGE_SIGNING_SECRET: "fedcba9876543210fedcba9876543210fedcba98",
  SMTP_URL: "smtps://mailer:secret@smtp.example.com:465",
  // values-production.yaml configures GitHub sign-in.
  GITHUB_CLIENT_SECRET: "github-oauth-app-secret",
};

/** The Secret `deploy/scripts/service-keys.ts` makes (decision 0023), as docs/deploy.md has you create it. */
const serviceNames = ["bff", "auth", "media", "transcription", "transcription-worker", "transcription-live", "billing", "export", "blog", "notifier", "webhooks"];
const serviceKeys = await generateServiceKeys(serviceNames);
const serviceKeysSecret: Record<string, string> = {
  SERVICE_PUBLIC_KEYS: JSON.stringify(serviceKeys.publicKeys),
  ...Object.fromEntries(serviceNames.map((name) => [`SERVICE_KEY_${name.replace(/-/g, "_").toUpperCase()}`, JSON.stringify(serviceKeys.privateKeys[name])])),
};

describe("every service is built, deployed and configured", () => {
  it("has a skaffold artifact for every service workspace, each entry point existing", () => {
    expect(workspaces.length).toBeGreaterThanOrEqual(8);
    for (const workspace of workspaces) {
      expect(artifacts.map((a) => a.docker.buildArgs.SERVICE), `services/${workspace}`).toContain(workspace);
    }
    for (const artifact of artifacts) {
      expect(artifact.docker.dockerfile).toBe("deploy/Dockerfile");
      expect(existsSync(path.join(repoRoot, "services", artifact.docker.buildArgs.SERVICE, entryOf(artifact))), artifact.image).toBe(true);
      expect(["plain", "web", "ffmpeg", "fonts", "whisper"]).toContain(artifact.docker.buildArgs.FLAVOR);
      expect(knownEntryPoint(artifact.docker.buildArgs.SERVICE, entryOf(artifact)), `${artifact.image}: no config schema in charts/test/service-env.ts`).toBe(true);
    }
    // The Dockerfile has a stage for every flavor skaffold asks for.
    const dockerfile = readFileSync(path.join(repoRoot, "deploy/Dockerfile"), "utf8");
    for (const flavor of new Set(artifacts.map((a) => a.docker.buildArgs.FLAVOR))) expect(dockerfile).toContain(`AS flavor-${flavor}`);
  });

  it("hands every built image to the chart through the helm deploy", () => {
    const templates = skaffold.deploy.helm.releases[0]!.setValueTemplates;
    expect(skaffold.deploy.helm.releases[0]!.chartPath).toBe("charts/transcribe");
    for (const artifact of artifacts) {
      const component = artifact.image.split("/").pop()!;
      const key = artifact.image.replace(/[^A-Za-z0-9]/g, "_");
      expect(templates[`services.${component}.image`], artifact.image).toBe(`{{.IMAGE_REPO_${key}}}`);
      expect(templates[`services.${component}.tag`], artifact.image).toBe(`{{.IMAGE_TAG_${key}}}`);
    }
  });

  describe.skipIf(toolsMissing)("the chart", () => {
    const cases = [
      { name: "default values", values: [] as string[] },
      { name: "values-production.yaml", values: [productionValues] },
      { name: "the embedded event bus", values: [], set: ["eventBus.type=embedded"] },
    ];
    for (const { name, values, set } of cases) {
      it(`runs every artifact as a Deployment whose environment its config schema accepts (${name})`, () => {
        const { manifests } = render({ values, ...(set ? { set } : {}) });
        const deployments = manifests.filter((m) => m.kind === "Deployment");
        const secret = manifests.find((m) => m.kind === "Secret" && !m.metadata.annotations?.["helm.sh/hook"]);
        const secrets = {
          ...(secret
            ? Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]))
            : existingSecretExample),
          ...serviceKeysSecret,
        };
        expect(deployments).toHaveLength(artifacts.length);
        for (const artifact of artifacts) {
          const deployment = deployments.find((d) => repository(d.spec.template.spec.containers[0].image) === artifact.image);
          expect(deployment, `no Deployment runs ${artifact.image}`).toBeDefined();
          const service = artifact.docker.buildArgs.SERVICE;
          const { schema, checks } = processSchema(service, entryOf(artifact));
          const { env, refs } = environmentOf(deployment!, secrets);
          const where = `${deployment!.metadata.name} (${artifact.image})`;

          const required = requiredVariables(schema);
          const missing = required.filter((key) => !(key in env) && !refs.includes(key));
          expect(missing, `${where}: required variables the chart does not set`).toEqual([]);

          const parsed = schema.safeParse(env);
          expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`), where).toEqual([]);
          expect(() => checks(parsed.data), where).not.toThrow();
        }
      });
    }

    it("needs DATABASE_URL for every service with migrations and sets it (the derivation is not empty)", () => {
      const { schema } = processSchema("media", "src/main.ts");
      expect(requiredVariables(schema)).toContain("DATABASE_URL");
      expect(requiredVariables(processSchema("bff", "src/main.ts").schema)).not.toContain("DATABASE_URL");
    });
  });
});
