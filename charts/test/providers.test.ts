import { cloudProviderNames, providers } from "@transcribe/transcription/domain/models";
import { beforeAll, describe, expect, it } from "vitest";
import { type Manifest, render, toolsMissing } from "./tools.js";

/**
 * Every cloud provider of the registry (services/transcription/src/domain/models.ts,
 * decision 0036) has its API key read from the Secret by the transcription API and every
 * worker: models.providerKeys drives the chart, and the registry's test checks that list.
 */
type EnvItem = { name: string; valueFrom?: { secretKeyRef?: { key: string; optional?: boolean } } };

describe.skipIf(toolsMissing)("the speech providers' keys in the chart", () => {
  let manifests: Manifest[];
  beforeAll(() => {
    ({ manifests } = render({}));
  });

  it("reach the transcription API and every worker from the Secret, as optional keys", () => {
    const deployments = manifests.filter((m) => m.kind === "Deployment");
    const transcription = deployments.filter((m) => /-transcription(-worker.*)?$/.test(m.metadata.name));
    expect(transcription.length).toBeGreaterThanOrEqual(2);
    for (const name of cloudProviderNames) {
      const key = providers[name].keyVariable;
      for (const deployment of transcription) {
        const env = deployment.spec.template.spec.containers[0].env as EnvItem[];
        expect(env.find((e) => e.name === key)?.valueFrom?.secretKeyRef, `${deployment.metadata.name} ${key}`).toMatchObject({ key, optional: true });
      }
    }
  });
});
