import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineUnavailable, whisperPython } from "./helpers.js";

const engineDir = path.resolve(import.meta.dirname, "../engine");

type ScriptedWord = [word: string, start: number, end: number];

interface Scripted {
  /** The decode's words, in buffer seconds. */
  words: ScriptedWord[];
  /** What the VAD hears in the buffer, in buffer seconds. */
  speech: Array<[start: number, end: number]>;
}

interface Step {
  settled: string[];
  partial: string[];
  /** What the decode was given: the buffer's length and the prompt. */
  bufferSeconds: number;
  prompt: string | null;
}

/**
 * The live engine's streaming policy (engine/live_engine.py, LivePolicy; decision 0030), apart
 * from the model and the VAD: each step feeds `secondsPerStep` of audio, and the decode and the
 * VAD return the next scripted hypothesis and speech. `env` sets the engine's LIVE_* settings.
 */
function steps(script: Scripted[], secondsPerStep: number, env: Record<string, string> = {}): Step[] {
  const program = `
import json, sys
import numpy as np
sys.path.insert(0, ${JSON.stringify(engineDir)})
import live_engine
script, seconds = json.loads(sys.stdin.read())
calls = iter(script)
current = {}
given = {}
def vad(samples):
    global current
    current = next(calls)
    return [tuple(r) for r in current["speech"]]
def decode(samples, prompt, final=False):
    given.update(seconds=round(len(samples) / live_engine.SAMPLE_RATE, 3), prompt=prompt)
    words = [{"word": w, "start": s, "end": e, "probability": 0.9} for w, s, e in current["words"]]
    return [{"end": words[-1]["end"] if words else 0, "words": words}]
policy = live_engine.LivePolicy(decode, vad)
out = []
for _ in script:
    policy.feed(np.zeros(int(seconds * live_engine.SAMPLE_RATE), np.float32))
    settled = policy.step()
    out.append({"settled": [w["word"] for w in settled], "partial": [w["word"] for w in policy.partial],
                "bufferSeconds": given.get("seconds"), "prompt": given.get("prompt")})
print(json.dumps(out))
`;
  return JSON.parse(
    execFileSync(whisperPython, ["-c", program], {
      input: JSON.stringify([script, secondsPerStep]),
      encoding: "utf8",
      env: { ...process.env, ...env },
    }),
  ) as Step[];
}

describe.skipIf(engineUnavailable)("live engine: the streaming policy", () => {
  it("never settles a hypothesis that loops: the repeated phrase keeps its first saying", () => {
    // Two decodes of the same loop agree with each other; only the first "E." may settle.
    const loop: ScriptedWord[] = [[" Any", 0.1, 0.3], [" zed?", 0.35, 0.6], [" E.", 0.7, 0.8], [" E.", 0.85, 0.95], [" E.", 1.0, 1.1], [" E.", 1.15, 1.25], [" E.", 1.3, 1.4]];
    const out = steps([{ words: loop, speech: [[0, 2]] }, { words: loop, speech: [[0, 2.5]] }], 1.0);
    expect(out[0]?.partial).toEqual([" Any", " zed?", " E."]);
    expect(out[1]?.settled).toEqual([" Any", " zed?", " E."]);
  });

  it("keeps a word said two or three times, as people do", () => {
    const words: ScriptedWord[] = [[" No,", 0.1, 0.3], [" no,", 0.35, 0.5], [" no.", 0.55, 0.7], [" Stop", 0.9, 1.1], [" it.", 1.15, 1.3]];
    const out = steps([{ words, speech: [[0, 2]] }, { words, speech: [[0, 2.5]] }], 1.0);
    expect(out[1]?.settled).toEqual([" No,", " no,", " no.", " Stop", " it."]);
  });

  it("agrees on words only once the buffer holds 2 s of audio: two guesses from half a sentence never settle", () => {
    // 0.5 s a step, the speaker talking throughout. The first two decodes hear too little and
    // guess the same wrong start; from 1.5 s of audio on, every decode reads it right.
    const guess: ScriptedWord[] = [[" Howdy,", 0.1, 0.4], [" Mary", 0.45, 0.9]];
    const right: ScriptedWord[] = [[" Had", 0.1, 0.25], [" he", 0.25, 0.4], [" married", 0.45, 0.9], [" a", 0.95, 1.0]];
    const script = [guess, guess, right, right, right].map((words, i) => ({
      words,
      speech: [[0, 0.5 * (i + 1)]] as Array<[number, number]>,
    }));
    const out = steps(script, 0.5);
    expect(out.slice(0, 3).flatMap((s) => s.settled)).toEqual([]);
    expect(out[3]?.bufferSeconds).toBe(2);
    expect(out[3]?.settled).toEqual([" Had", " he", " married", " a"]);
    const off = steps(script, 0.5, { LIVE_MIN_AGREE_SECONDS: "0" });
    expect(off[1]?.settled).toEqual([" Howdy,", " Mary"]);
  });

  it("cuts the buffer in a silence once every word before it is settled, and prompts with those words", () => {
    // 2 s a step; a silence from 0.9 to 2.1 s, and the speaker goes on to the buffer's end.
    const first: ScriptedWord[] = [[" one", 0.1, 0.4], [" two", 0.5, 0.8]];
    const out = steps(
      [
        { words: first, speech: [[0, 2]] },
        { words: [...first, [" three", 2.2, 2.6], [" four", 2.7, 3.9]], speech: [[0, 0.9], [2.1, 4]] },
        // After the cut at 1.5 s, buffer time 0 is session time 1.5 s.
        { words: [[" three", 0.7, 1.1], [" four", 1.2, 2.4], [" five", 2.5, 4.4]], speech: [[0.6, 4.5]] },
      ],
      2.0,
    );
    expect(out[1]?.settled).toEqual([" one", " two"]);
    expect(out[1]?.bufferSeconds).toBe(4);
    expect(out[2]?.bufferSeconds).toBe(4.5);
    expect(out[2]?.prompt).toBe("one two");
    expect(out[2]?.settled).toEqual([" three", " four"]);
  });

  it("leaves the buffer whole while a word before the silence is still unsettled", () => {
    // The age rule (next test) would settle "too" 1.8 s after its end; here it is off, so the
    // word stays open and the cut rule alone is tested.
    const out = steps(
      [
        { words: [[" one", 0.1, 0.4], [" two", 0.5, 0.8]], speech: [[0, 2]] },
        { words: [[" one", 0.1, 0.4], [" too", 0.5, 0.8], [" three", 2.2, 2.6]], speech: [[0, 0.9], [2.1, 4]] },
        { words: [[" one", 0.1, 0.4], [" too", 0.5, 0.8], [" three", 2.2, 2.6]], speech: [[0, 0.9], [2.1, 6]] },
      ],
      2.0,
      { LIVE_SETTLE_AFTER_SECONDS: "0" },
    );
    expect(out[1]?.settled).toEqual([" one"]);
    expect(out[2]?.bufferSeconds).toBe(6);
    expect(out[2]?.prompt).toBeNull();
  });

  it("settles a word the hypotheses keep rewording once 1.8 s of audio follow it, as the latest one reads it", () => {
    // Mumbled speech: each decode reads the first word differently, so no two agree on it; the
    // speaker goes on without a pause. 0.5 s a step.
    const readings = [" lingers", " leaders", " lingers", " leaders", " lingers"];
    const script = readings.map((first, i) => ({
      words: [[first, 0.2, 0.5], [i % 2 ? " down" : " done", 0.6, 0.9]] as ScriptedWord[],
      speech: [[0, 0.5 * (i + 1)]] as Array<[number, number]>,
    }));
    const out = steps(script, 0.5);
    expect(out.slice(0, 4).flatMap((s) => s.settled)).toEqual([]);
    // At 2.5 s the first word ended 2 s ago: it settles; the second (ended 1.6 s ago) does not.
    expect(out[4]?.settled).toEqual([" lingers"]);
    expect(out[4]?.partial).toEqual([" done"]);
    const off = steps(script, 0.5, { LIVE_SETTLE_AFTER_SECONDS: "0" });
    expect(off.flatMap((s) => s.settled)).toEqual([]);
  });

  it("never settles by age a word Whisper wrote in the silence after the speech", () => {
    // Speech ends at 1 s; each decode invents a different word at 2 s, in the silence.
    const script = [" Thank", " Bye", " Thank", " Bye", " Thank", " Bye"].map((ghost) => ({
      words: [[" Okay.", 0.2, 0.8], [ghost, 2.0, 2.3]] as ScriptedWord[],
      speech: [[0, 1]] as Array<[number, number]>,
    }));
    const out = steps(script, 1.0);
    expect(out.flatMap((s) => s.settled)).toEqual([" Okay."]);
    expect(out[5]?.partial).toEqual([" Bye"]);
  });

  it("never settles by age a word squeezed to no length (one the aligner could not place)", () => {
    // Text carried over from the prompt comes back with zero-length words; readings differ.
    const script = [" really", " truly", " really", " truly", " really", " truly"].map((echo, i) => ({
      words: [[" and", 0.2, 0.2], [echo, 0.2, 0.2], [i % 2 ? " more" : " most", 0.3, 0.6]] as ScriptedWord[],
      speech: [[0, 0.5 * (i + 1)]] as Array<[number, number]>,
    }));
    const out = steps(script, 0.5);
    expect(out.flatMap((s) => s.settled)).toEqual([" and"]);
  });
});
