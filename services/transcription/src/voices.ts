import { randomUUID } from "node:crypto";
import { AppError } from "@transcribe/platform";
import { sql } from "kysely";
import type { Db, Trx } from "./db/repository.js";
import { validateSpeakerName, type Speaker } from "./domain/speakers.js";
import type { TranscriptResult } from "./domain/transcriber.js";
import { isEmbedding, matchVoices, nameMatchedSpeakers, strengthen, unit } from "./domain/voices.js";

/**
 * The voice library's use cases (decision 0031): per user, off until turned on. While on,
 * a diarized transcript keeps each speaker's embedding, renaming a speaker saves (or
 * strengthens) the voice under the new name, and a later transcript names the speakers
 * whose voice matches a saved one. Nothing here ever reads or keeps audio.
 */

export interface VoiceRow {
  id: string;
  name: string;
  samples: number;
  created_at: Date;
  updated_at: Date;
}

const voiceNotFound = () => new AppError("not_found", "Voice not found");

export async function libraryEnabled(db: Db | Trx, userId: string): Promise<boolean> {
  const row = await db.selectFrom("voice_settings").select("enabled").where("user_id", "=", userId).executeTakeFirst();
  return row?.enabled ?? false;
}

/** Turning the library off deletes every voice of the user and the voices kept with transcripts. */
export async function setLibraryEnabled(db: Db, userId: string, enabled: boolean): Promise<boolean> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("voice_settings")
      .values({ user_id: userId, enabled })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ enabled, updated_at: sql`now()` }))
      .execute();
    if (!enabled) await forgetUser(trx, userId);
  });
  return enabled;
}

/** Every voice and kept speaker embedding of a user (library off, account deleted). */
export async function forgetUser(trx: Trx, userId: string): Promise<void> {
  await trx.deleteFrom("voices").where("user_id", "=", userId).execute();
  await trx.deleteFrom("transcription_speaker_voices").where("user_id", "=", userId).execute();
}

export async function listVoices(db: Db, userId: string): Promise<VoiceRow[]> {
  return db
    .selectFrom("voices")
    .select(["id", "name", "samples", "created_at", "updated_at"])
    .where("user_id", "=", userId)
    .orderBy("name")
    .orderBy("id")
    .execute();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function renameVoice(db: Db, userId: string, id: string, rawName: string): Promise<VoiceRow> {
  if (!uuidPattern.test(id)) throw voiceNotFound();
  const name = validateSpeakerName(rawName);
  return db.transaction().execute(async (trx) => {
    const clash = await trx.selectFrom("voices").select("id").where("user_id", "=", userId).where("name", "=", name).where("id", "<>", id).executeTakeFirst();
    if (clash) throw new AppError("already_exists", "You already have a voice with that name", { field: "name" });
    const row = await trx
      .updateTable("voices")
      .set({ name, updated_at: sql`now()` })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .returning(["id", "name", "samples", "created_at", "updated_at"])
      .executeTakeFirst();
    if (!row) throw voiceNotFound();
    return row;
  });
}

export async function deleteVoice(db: Db, userId: string, id: string): Promise<void> {
  if (!uuidPattern.test(id)) throw voiceNotFound();
  const deleted = await db.deleteFrom("voices").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) throw voiceNotFound();
}

/**
 * A fresh result's speakers named after the saved voices they match, when the user's
 * library is on; otherwise the result as it is (its embeddings are then never written).
 */
export async function recogniseVoices(trx: Trx, userId: string, result: TranscriptResult): Promise<TranscriptResult> {
  const embeddings = result.speakerEmbeddings;
  if (!embeddings || !result.speakers?.length || !(await libraryEnabled(trx, userId))) return result;
  const voices = await trx.selectFrom("voices").select(["id", "name", "embedding"]).where("user_id", "=", userId).execute();
  if (!voices.length) return result;
  const matches = matchVoices(
    Object.entries(embeddings).map(([id, embedding]) => ({ id, embedding })),
    voices,
  );
  return { ...result, speakers: nameMatchedSpeakers(result.speakers, matches) };
}

/** Keeps a written result's speaker embeddings so that renaming a speaker can save its voice. */
export async function keepSpeakerVoices(trx: Trx, userId: string, resultId: string, result: TranscriptResult): Promise<void> {
  const embeddings = Object.entries(result.speakerEmbeddings ?? {}).filter(([, v]) => isEmbedding(v));
  if (!embeddings.length || !(await libraryEnabled(trx, userId))) return;
  await trx
    .insertInto("transcription_speaker_voices")
    .values(embeddings.map(([speakerId, embedding]) => ({ result_id: resultId, speaker_id: speakerId, user_id: userId, embedding })))
    .execute();
}

/**
 * Renaming a speaker while the library is on saves its voice under the new name: a new
 * voice, or one more sample in the running mean of the voice that has that name. A speaker
 * saved once is not counted twice; a voice made from this speaker alone (a typo fixed
 * right after) is renamed, or folded into the voice that already has the new name.
 * Returns the voice the speaker now belongs to, or undefined when nothing is saved.
 */
export async function saveSpeakerVoice(trx: Trx, userId: string, resultId: string, speaker: Speaker, name: string): Promise<string | undefined> {
  if (!(await libraryEnabled(trx, userId))) return undefined;
  const kept = await trx
    .selectFrom("transcription_speaker_voices")
    .select("embedding")
    .where("result_id", "=", resultId)
    .where("speaker_id", "=", speaker.id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!kept || !isEmbedding(kept.embedding)) return undefined;
  const target = await trx.selectFrom("voices").selectAll().where("user_id", "=", userId).where("name", "=", name).forUpdate().executeTakeFirst();
  // The speaker's own earlier save (no confidence: the user named it, it was not matched).
  const own =
    speaker.voiceId && speaker.confidence === undefined
      ? await trx.selectFrom("voices").selectAll().where("user_id", "=", userId).where("id", "=", speaker.voiceId).forUpdate().executeTakeFirst()
      : undefined;
  if (own && target && own.id === target.id) return own.id;
  if (own && own.samples === 1) {
    if (!target) {
      await trx.updateTable("voices").set({ name, updated_at: sql`now()` }).where("id", "=", own.id).execute();
      return own.id;
    }
    await trx.deleteFrom("voices").where("id", "=", own.id).execute();
  }
  if (target) {
    await trx
      .updateTable("voices")
      .set({ embedding: strengthen(target.embedding, target.samples, kept.embedding), samples: target.samples + 1, updated_at: sql`now()` })
      .where("id", "=", target.id)
      .execute();
    return target.id;
  }
  const id = randomUUID();
  await trx.insertInto("voices").values({ id, user_id: userId, name, embedding: unit(kept.embedding), samples: 1 }).execute();
  return id;
}
