import { sql } from "kysely";
import type { VocabularyTerm } from "../domain/vocabulary.js";
import type { Db, Trx } from "./repository.js";

/** The user's vocabulary, in their order; empty when they never saved one. */
export async function readVocabulary(db: Db | Trx, userId: string): Promise<VocabularyTerm[]> {
  const row = await db.selectFrom("transcription_vocabularies").select("terms").where("user_id", "=", userId).executeTakeFirst();
  return row?.terms ?? [];
}

/** Replaces the whole vocabulary in one statement (validated by the caller). */
export async function writeVocabulary(db: Db, userId: string, terms: VocabularyTerm[]): Promise<void> {
  const value = sql<VocabularyTerm[]>`${JSON.stringify(terms)}::jsonb`;
  await db
    .insertInto("transcription_vocabularies")
    .values({ user_id: userId, terms: value })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ terms: value, updated_at: sql`now()` }))
    .execute();
}
