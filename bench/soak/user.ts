import type { Clip } from "../../tests/reliability/lib/speech.js";
import type { UserAgent, Response } from "./http-client.js";
import type { Mailbox } from "./mailbox.js";

export type JobState = "started" | "completed" | "failed";

/** What the soak knows about every transcription a user started. */
export interface JobRecord {
  id: string;
  user: number;
  state: JobState;
  error?: string;
  startedAt: number;
  endedAt?: number;
}

export interface SoakShared {
  mailbox: Mailbox;
  clips: Clip[];
  jobs: Map<string, JobRecord>;
  /** Answers a step did not expect (a 4xx where a 200 belongs): each is a broken flow. */
  flowErrors: string[];
  /** Users start no new round after this (ms since epoch). */
  endAt: number;
  /** A round still running is abandoned after this. */
  hardStopAt: number;
  exportFormats: readonly string[];
  model: string;
}

class FlowError extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const think = () => sleep(300 + Math.random() * 900);

function expectStatus(response: Response, expected: number[], what: string): void {
  if (!expected.includes(response.status)) {
    throw new FlowError(`${what}: ${response.status} ${response.body.toString("utf8").slice(0, 200)}`);
  }
}

/** The path and query of a URL the product handed out (its origin is the public one). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

/**
 * One person for the whole run: signs in by magic link, then round after round uploads
 * a short recording, waits for it, transcribes it (polling the way the dashboard does,
 * with ETags), exports it, renames and deletes it; signs out and in again now and then.
 */
export async function runUser(index: number, email: string, agent: UserAgent, shared: SoakShared): Promise<number> {
  let rounds = 0;
  while (Date.now() < shared.endAt) {
    try {
      if (!agent.signedIn || rounds % 4 === 3) await signIn(agent, email, shared);
      await round(index, agent, shared, rounds);
      rounds++;
    } catch (error) {
      // A broken step (or a connection error) ends the round; the person starts another.
      shared.flowErrors.push(`user ${index}: ${(error as Error).message}`);
      await sleep(2_000);
    }
    await think();
  }
  return rounds;
}

async function signIn(agent: UserAgent, email: string, shared: SoakShared): Promise<void> {
  if (agent.signedIn) {
    expectStatus(await agent.request("POST /auth/sign-out", "POST", "/auth/sign-out", { json: {} }), [200], "sign out");
    agent.forgetCookies();
  }
  const link = shared.mailbox.linkFor(email);
  link.catch(() => {});
  const sent = await agent.request("POST /auth/sign-in/magic-link", "POST", "/auth/sign-in/magic-link", {
    json: { email, callbackURL: "/dashboard" },
  });
  expectStatus(sent, [200], "magic link");
  const landed = await agent.request("GET /auth/magic-link/verify", "GET", pathOf(await link));
  expectStatus(landed, [302], "magic link verify");
  if (!agent.signedIn) throw new FlowError("magic link verify set no session cookie");
  expectStatus(await agent.request("GET /api/v1/me", "GET", "/api/v1/me"), [200], "me");
}

async function round(index: number, agent: UserAgent, shared: SoakShared, n: number): Promise<void> {
  const clip = shared.clips[(index + n) % shared.clips.length]!;
  const fileName = `soak-${index}-${n}.mp3`;
  const upload = await agent.request("POST /api/v1/upload", "POST", "/api/v1/upload", {
    json: { file_name: fileName, file_size: clip.bytes.length, content_type: clip.contentType, duration: 3 },
  });
  expectStatus(upload, [200], "upload");
  const { upload_url: uploadUrl, file_id: fileId } = upload.json<{ upload_url: string; file_id: string }>();
  const put = await agent.request("PUT /api/v1/storage/media/*", "PUT", pathOf(uploadUrl), {
    body: clip.bytes,
    headers: { "content-type": clip.contentType },
  });
  expectStatus(put, [200], "PUT upload");

  for (;;) {
    if (Date.now() > shared.hardStopAt) throw new FlowError(`file ${fileId} not processed before the end`);
    const file = await agent.request("GET /api/v1/files/:id", "GET", `/api/v1/files/${fileId}`);
    expectStatus(file, [200], "file");
    const status = file.json<{ status: string; error?: string }>().status;
    if (status === "ready") break;
    if (status === "failed") throw new FlowError(`file ${fileId} failed: ${file.json<{ error?: string }>().error}`);
    await sleep(700);
  }
  await think();

  const created = await agent.request("POST /api/v1/transcriptions", "POST", "/api/v1/transcriptions", {
    json: { file_id: fileId, settings: { model: shared.model, language: "en", translate_to_en: false } },
  });
  expectStatus(created, [200], "start transcription");
  const id = created.json<{ transcription_id: string }>().transcription_id;
  const job: JobRecord = { id, user: index, state: "started", startedAt: Date.now() };
  shared.jobs.set(id, job);

  // The dashboard: the list and the open transcript, each polled with its ETag.
  let detailTag: string | undefined;
  let listTag: string | undefined;
  let detail: { status: string; error?: string } | undefined;
  for (let poll = 0; ; poll++) {
    if (Date.now() > shared.hardStopAt) throw new FlowError(`transcription ${id} not finished before the end`);
    const answer = await agent.request("GET /api/v1/transcriptions/:id", "GET", `/api/v1/transcriptions/${id}`, {
      headers: detailTag ? { "if-none-match": detailTag } : {},
    });
    expectStatus(answer, [200, 304], "transcription");
    if (answer.status === 200) {
      detailTag = answer.headers.etag;
      detail = answer.json();
    }
    if (detail && (detail.status === "completed" || detail.status === "failed")) break;
    if (poll % 3 === 0) {
      const list = await agent.request("GET /api/v1/transcriptions", "GET", "/api/v1/transcriptions?limit=20", {
        headers: listTag ? { "if-none-match": listTag } : {},
      });
      expectStatus(list, [200, 304], "list");
      if (list.status === 200) listTag = list.headers.etag;
    }
    await sleep(1_000);
  }
  job.state = detail.status as JobState;
  job.endedAt = Date.now();
  if (detail.status === "failed") {
    job.error = detail.error ?? "";
    if (!detail.error) throw new FlowError(`transcription ${id} failed without a reason`);
  } else {
    const format = shared.exportFormats[(index + n) % shared.exportFormats.length]!;
    const exported = await agent.request("POST /api/v1/transcriptions/:id/export", "POST", `/api/v1/transcriptions/${id}/export`, {
      json: { format },
    });
    expectStatus(exported, [200], `export ${format}`);
    const download = await agent.request("GET /api/v1/storage/exports/*", "GET", pathOf(exported.json<{ download_url: string }>().download_url));
    expectStatus(download, [200], `download ${format}`);
    if (download.body.length === 0) throw new FlowError(`export ${format} of ${id} is empty`);
  }
  await think();

  const renamed = await agent.request("PATCH /api/v1/transcriptions/:id/rename", "PATCH", `/api/v1/transcriptions/${id}/rename`, {
    json: { new_name: `Soak ${index}.${n} ✓` },
  });
  expectStatus(renamed, [200], "rename");
  expectStatus(await agent.request("GET /api/v1/trial-limits", "GET", "/api/v1/trial-limits"), [200], "trial limits");
  expectStatus(await agent.request("DELETE /api/v1/transcriptions/:id", "DELETE", `/api/v1/transcriptions/${id}`), [204], "delete");
}
