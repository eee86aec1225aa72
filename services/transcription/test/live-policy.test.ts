import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineUnavailable, whisperPython } from "./helpers.js";

const engineDir = path.resolve(import.meta.dirname, "../engine");

interface Step {
  settled: string[];
  partial: string[];
}

/**
 * The live engine's streaming policy (engine/live_engine.py, LivePolicy; decision 0030), apart
 * from the model: each decode of the buffer returns the next scripted hypothesis, its times in
 * buffer seconds. Returns what each step settled and left partial.
 */
function steps(hypotheses: Array<Array<[word: string, start: number, end: number, probability: number]>>, secondsPerStep = 0.5): Step[] {
  const script = `
import json, sys
import numpy as np
sys.path.insert(0, ${JSON.stringify(engineDir)})
import live_engine
hypotheses, seconds = json.loads(sys.stdin.read())
calls = iter(hypotheses)
def decode(samples, prompt, final=False):
    words = [{"word": w, "start": s, "end": e, "probability": p} for w, s, e, p in next(calls)]
    return [{"end": words[-1]["end"] if words else 0, "words": words}]
policy = live_engine.LivePolicy(decode)
out = []
for _ in hypotheses:
    policy.feed(np.zeros(int(seconds * live_engine.SAMPLE_RATE), np.float32))
    settled = policy.step()
    out.append({"settled": [w["word"] for w in settled], "partial": [w["word"] for w in policy.partial]})
print(json.dumps(out))
`;
  return JSON.parse(
    execFileSync(whisperPython, ["-c", script], { input: JSON.stringify([hypotheses, secondsPerStep]), encoding: "utf8" }),
  ) as Step[];
}

describe.skipIf(engineUnavailable)("live engine: when a word settles", () => {
  it("settles a sure word heard whole at first sight, and waits for a second hypothesis for the rest", () => {
    // Buffer 1.0 s after the first step: "hello" (sure, ends 0.5 s before the buffer's end)
    // settles; "world" is sure but ends at the buffer's end, where it may be cut off.
    const out = steps([
      [[" hello", 0.1, 0.5, 0.95], [" world", 0.6, 0.98, 0.95]],
      [[" hello", 0.1, 0.5, 0.95], [" world", 0.6, 0.98, 0.95], [" again", 1.1, 1.45, 0.9]],
    ], 1.0);
    expect(out[0]).toEqual({ settled: [" hello"], partial: [" world"] });
    // The second hypothesis agrees on "world"; "again" (1.45 s, buffer 2.0 s) is sure and whole.
    expect(out[1]).toEqual({ settled: [" world", " again"], partial: [] });
  });

  it("leaves an unsure word, and every word after it, to the agreement of two hypotheses", () => {
    const out = steps([
      [[" seven", 0.1, 0.4, 0.55], [" of", 0.45, 0.55, 0.99], [" clubs", 0.6, 0.9, 0.99]],
      [[" seven", 0.1, 0.4, 0.6], [" of", 0.45, 0.55, 0.99], [" clubs", 0.6, 0.9, 0.99]],
    ], 2.0);
    // Nothing settles before the unsure "seven", though "of" and "clubs" are sure and whole.
    expect(out[0]).toEqual({ settled: [], partial: [" seven", " of", " clubs"] });
    expect(out[1]).toEqual({ settled: [" seven", " of", " clubs"], partial: [] });
  });

  it("never takes back a word settled at first sight when the next hypothesis hears it otherwise", () => {
    const out = steps([
      [[" back", 0.1, 0.3, 0.9], [" up", 0.35, 0.5, 0.6]],
      [[" backup", 0.1, 0.5, 0.7], [" now", 0.6, 0.8, 0.5]],
    ], 1.0);
    expect(out[0]).toEqual({ settled: [" back"], partial: [" up"] });
    // "backup" starts where the settled "back" did: it is not heard twice.
    expect(out[1]?.settled).toEqual([]);
    expect(out[1]?.partial).toEqual([" now"]);
  });
});
