/**
 * Recently served transcripts as their API JSON (Transcription.result_json), by the
 * transcription row's version (decision 0027). A revision's segments never change; what
 * can change under the same revision number (the speakers' names) is written in the same
 * transaction as an update of the transcription row, and so is every new revision. The
 * row's `xmin` (the transaction that last wrote it) is read with the ownership check that
 * every request makes anyway, so an entry is found only while the row is as it was when
 * the entry was made — also when another replica made the write. Ownership is checked
 * before the cache is asked: the key holds the transcription's id, never the user's.
 */
export interface ResultCacheKey {
  transcriptionId: string;
  /** The transcription row's xmin and updated_at, as read with it. */
  rowVersion: string;
  revision: number;
  withWords: boolean;
}

/** Byte strings by key, least recently used first out, within a byte budget. */
export function createByteCache(maxBytes: number) {
  // Map keeps insertion order: re-inserting on a hit makes the first entry the least recently used.
  const entries = new Map<string, Uint8Array>();
  let bytes = 0;
  return {
    get(key: string): Uint8Array | undefined {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key: string, value: Uint8Array): void {
      if (value.byteLength > maxBytes / 4) return;
      const old = entries.get(key);
      if (old) {
        bytes -= old.byteLength;
        entries.delete(key);
      }
      entries.set(key, value);
      bytes += value.byteLength;
      for (const [oldest, v] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= v.byteLength;
      }
    },
    get size() {
      return entries.size;
    },
  };
}

export function createResultCache(maxBytes = 64 * 1024 * 1024) {
  const cache = createByteCache(maxBytes);
  const keyOf = (k: ResultCacheKey) => `${k.transcriptionId}\0${k.rowVersion}\0${k.revision}\0${k.withWords ? "w" : "s"}`;
  return {
    get: (key: ResultCacheKey) => cache.get(keyOf(key)),
    set: (key: ResultCacheKey, json: Uint8Array) => cache.set(keyOf(key), json),
    get size() {
      return cache.size;
    },
  };
}
export type ResultCache = ReturnType<typeof createResultCache>;

/**
 * Pages of a user's list as their API JSON (ListTranscriptionsResponse.transcriptions_json),
 * by the user's list fingerprint (db/repository.ts listVersion): the number of the user's
 * rows and a sum of a 64-bit hash of each row's xmin. Every insert, update (a rename, a
 * status change, a soft delete) and delete of one of the user's rows changes it, whichever
 * process or replica made it, so an entry is found only while the user's rows are as they
 * were. The page is read after the fingerprint: an entry is never older than its key.
 */
export interface ListCacheKey {
  userId: string;
  limit: number;
  offset: number;
  status: string | undefined;
  query: string | undefined;
  fingerprint: string;
}

export function createListCache(maxBytes = 16 * 1024 * 1024) {
  const cache = createByteCache(maxBytes);
  const keyOf = (k: ListCacheKey) => JSON.stringify([k.userId, k.limit, k.offset, k.status ?? null, k.query ?? null, k.fingerprint]);
  return {
    get: (key: ListCacheKey) => cache.get(keyOf(key)),
    set: (key: ListCacheKey, json: Uint8Array) => cache.set(keyOf(key), json),
  };
}
