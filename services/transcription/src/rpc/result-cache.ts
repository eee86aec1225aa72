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

export function createResultCache(maxBytes = 64 * 1024 * 1024) {
  // Map keeps insertion order: re-inserting on a hit makes the first entry the least recently used.
  const entries = new Map<string, Uint8Array>();
  let bytes = 0;
  const keyOf = (k: ResultCacheKey) => `${k.transcriptionId}\0${k.rowVersion}\0${k.revision}\0${k.withWords ? "w" : "s"}`;
  return {
    get(key: ResultCacheKey): Uint8Array | undefined {
      const k = keyOf(key);
      const hit = entries.get(k);
      if (hit) {
        entries.delete(k);
        entries.set(k, hit);
      }
      return hit;
    },
    set(key: ResultCacheKey, json: Uint8Array): void {
      if (json.byteLength > maxBytes / 4) return;
      const k = keyOf(key);
      const old = entries.get(k);
      if (old) {
        bytes -= old.byteLength;
        entries.delete(k);
      }
      entries.set(k, json);
      bytes += json.byteLength;
      for (const [oldest, value] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= value.byteLength;
      }
    },
    get size() {
      return entries.size;
    },
  };
}
export type ResultCache = ReturnType<typeof createResultCache>;
