import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable, synthesize } from "../../../transcription/test/helpers.js";
import { type Product, signInByMagicLink, startProduct, type User } from "../security/product.js";
import { pythonTools, repoRoot, run, toolPresent } from "./document.js";

const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";

/**
 * decision 0025's proof that clients can be generated from the document: openapi-python-client
 * and openapi-typescript read the document the running product serves; the Python client
 * then does what an integrator does (list models, upload real speech through the documented
 * upload flow, transcribe with the real engine, poll, export srt), and the TypeScript client
 * type-checks and runs against the same product. Both authenticate with an API key that the
 * magic-link-signed-in user created through the API (POST /api/v1/api-keys).
 */
describe.skipIf(!toolPresent(path.join(pythonTools, "openapi-python-client")) || Boolean(engineUnavailable))("clients generated from the served document", () => {
  let product: Product;
  let user: User;
  let work: string;
  let documentPath: string;
  let apiKey: string;

  beforeAll(async () => {
    product = await startProduct();
    user = await signInByMagicLink(product, "integrator");
    const created = await fetch(`${product.baseUrl}/api/v1/api-keys`, {
      method: "POST",
      headers: { cookie: user.cookie, origin: product.baseUrl, "content-type": "application/json" },
      body: JSON.stringify({ name: "generated clients" }),
    });
    expect(created.status).toBe(201);
    apiKey = ((await created.json()) as { key: string }).key;
    expect(apiKey).toMatch(/^tsk_/);
    // Inside the repository, so the TypeScript client resolves openapi-fetch from node_modules.
    work = path.join(repoRoot, "node_modules/.cache/openapi-clients", `${Date.now()}-${process.pid}`);
    await mkdir(work, { recursive: true });
    documentPath = path.join(work, "openapi.json");
    const response = await fetch(`${product.baseUrl}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    await writeFile(documentPath, await response.text());
  }, 300_000);

  afterAll(async () => {
    await product?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("Python (openapi-python-client): models, upload, transcribe, poll, srt export with the script's words; a bad credential gets the documented 401", { timeout: 600_000 }, async () => {
    const generated = await run(path.join(pythonTools, "openapi-python-client"), ["generate", "--path", documentPath, "--meta", "none", "--output-path", path.join(work, "transcribe_api_client")], {
      env: { ...process.env, PATH: `${pythonTools}:${process.env.PATH}` },
    });
    // The one part it leaves out: the image proxy's bytes in several image types.
    const warnings = `${generated.stdout}\n${generated.stderr}`.split("\n").filter((line) => line.startsWith("WARNING"));
    expect(warnings).toEqual(["WARNING parsing POST /api/v1/image-proxy within images."]);

    const speech = await synthesize(SCRIPT);
    const { stdout } = await run(path.join(pythonTools, "python"), [path.join(import.meta.dirname, "python_client_flow.py")], {
      env: {
        ...process.env,
        CLIENT_DIR: work,
        BASE_URL: product.baseUrl,
        CREDENTIAL: apiKey,
        AUDIO_PATH: speech.path,
        AUDIO_DURATION: String(speech.duration),
        POLL_SECONDS: "400",
      },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`python client flow failed:\n${error.stdout}\n${error.stderr}`);
    });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(out.models).toContain("whisper-tiny.en");
    expect(out.put_status).toBe(200);
    expect(out.status).toBe("completed");
    expect(out.file_status).toBe("ready");
    expect(out.segments).toBeGreaterThan(0);
    expect(out.export_format).toBe("srt");
    const srt = String(out.srt);
    expect(srt).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}/);
    for (const word of ["committee", "tuesday", "budget", "library"]) expect(srt.toLowerCase()).toContain(word);
    expect(out.bad_status).toBe(401);
    expect(out.bad_error_code).toBe("invalid_api_key");
  });

  it("TypeScript (openapi-typescript + openapi-fetch): the same calls type-check with tsc --noEmit, a wrong one does not, and they run", { timeout: 300_000 }, async () => {
    const bin = (name: string) => path.join(repoRoot, "node_modules/.bin", name);
    // Without --default-non-nullable false, openapi-typescript makes request fields that have a default (include_timestamps) required.
    await run(bin("openapi-typescript"), [documentPath, "--default-non-nullable", "false", "--output", path.join(work, "schema.d.ts")]);
    await copyFile(path.join(import.meta.dirname, "ts-client-flow.ts.txt"), path.join(work, "flow.ts"));
    await writeFile(path.join(work, "package.json"), JSON.stringify({ type: "module" }));
    const tsconfig = (files: string[]) =>
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: ["node"], skipLibCheck: false }, files });
    await writeFile(path.join(work, "tsconfig.json"), tsconfig(["flow.ts"]));
    await run(bin("tsc"), ["-p", path.join(work, "tsconfig.json")]).catch((error: { stdout?: string }) => {
      throw new Error(`tsc --noEmit on the client calls:\n${error.stdout}`);
    });

    // The control: an export format the document does not allow is a type error.
    const flow = await readFile(path.join(work, "flow.ts"), "utf8");
    await writeFile(path.join(work, "wrong.ts"), flow.replace('body: { format: "vtt" }', 'body: { format: "mp3" }'));
    await writeFile(path.join(work, "tsconfig.wrong.json"), tsconfig(["wrong.ts"]));
    const wrong = await run(bin("tsc"), ["-p", path.join(work, "tsconfig.wrong.json")]).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? "",
    );
    expect(wrong).toMatch(/wrong\.ts\(\d+,\d+\): error TS2322: Type '"mp3"'/);

    const { stdout } = await run(bin("tsx"), [path.join(work, "flow.ts")], { cwd: work, env: { ...process.env, BASE_URL: product.baseUrl, CREDENTIAL: apiKey } });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as { available: string[]; text: string; format: string; badStatus: number; badCode: string };
    expect(out.available).toContain("whisper-tiny.en");
    expect(out.text.toLowerCase()).toContain("library");
    expect(out.format).toBe("vtt");
    expect(out.badStatus).toBe(401);
    expect(out.badCode).toBe("invalid_api_key");
  });
});
