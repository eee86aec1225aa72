import { execFileSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { amiDir, amiMissing, engineUnavailable, present, synthesize, whisperModelsDir, whisperPython, wordErrorRate } from "./helpers.js";

const engineDir = path.resolve(import.meta.dirname, "../engine");

/**
 * The live engine's short encoder window (engine/live_engine.py, ShortWindowWhisper; decision
 * 0030): a buffer of a few seconds is encoded as itself and a second of silence, not as 30 s.
 * The words and their times must be those of the 30 s decode of the same buffer.
 */
const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";

interface Decoded {
  words: Array<{ word: string; start: number; end: number }>;
  frames: number[];
}

function decode(wav: string, floorSeconds: number, keep = 1): Decoded {
  const script = `
import json, sys, wave
import numpy as np
sys.path.insert(0, ${JSON.stringify(engineDir)})
import live_engine
from whisper_engine import load_model
wav, models, floor, keep = json.loads(sys.stdin.read())
with wave.open(wav) as w:
    samples = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
samples = samples[: int(len(samples) * keep)]
model, _ = load_model(models + "/base", "int8", 2, "cpu", live_engine.short_window_model_class())
model.window_floor_seconds = floor
frames = []
encode = type(model).__mro__[1].encode
def recording(features):
    features = live_engine.short_window(features, floor)
    frames.append(int(features.shape[-1]))
    return encode(model, features)
model.encode = recording
segments = live_engine.whisper_decoder(model, {"language": "en"})(samples, None)
print(json.dumps({"words": [w for s in segments for w in s["words"]], "frames": frames}))
`;
  return JSON.parse(
    execFileSync(whisperPython, ["-c", script], { input: JSON.stringify([wav, whisperModelsDir, floorSeconds, keep]), encoding: "utf8" }),
  ) as Decoded;
}

describe.skipIf(engineUnavailable)("live engine: the encoder window follows the buffer", () => {
  let duration: number;
  let short: Decoded;
  let full: Decoded;

  let wav: string;

  beforeAll(async () => {
    const speech = await synthesize(SCRIPT, { voice: "en-us", speed: 160 });
    duration = speech.duration;
    wav = speech.path;
    short = decode(speech.path, 10);
    full = decode(speech.path, 0);
  }, 180_000);

  it("decodes with beam 1 while streaming and with the batch's beam 5 at the end, which settles every word", { timeout: 120_000 }, () => {
    // The last decode has no later hypothesis to agree with (decision 0030).
    const script = `
import json, sys, wave
import numpy as np
sys.path.insert(0, ${JSON.stringify(engineDir)})
import live_engine
from whisper_engine import load_model
wav, models = json.loads(sys.stdin.read())
with wave.open(wav) as w:
    samples = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
model, _ = load_model(models + "/base", "int8", 2, "cpu", live_engine.short_window_model_class())
beams = []
transcribe = model.transcribe
def recording(*args, **kwargs):
    beams.append(kwargs["beam_size"])
    return transcribe(*args, **kwargs)
model.transcribe = recording
policy = live_engine.LivePolicy(live_engine.whisper_decoder(model, {"language": "en"}))
settled = []
for i in range(0, len(samples), 8000):
    policy.feed(samples[i : i + 8000])
    if policy.due():
        settled += policy.step()
settled += policy.step(final=True)
print(json.dumps({"beams": beams, "text": "".join(w["word"] for w in settled), "partial": policy.partial}))
`;
    const out = JSON.parse(execFileSync(whisperPython, ["-c", script], { input: JSON.stringify([wav, whisperModelsDir]), encoding: "utf8" })) as {
      beams: number[];
      text: string;
      partial: unknown[];
    };
    expect(out.beams.length).toBeGreaterThan(2);
    expect(out.beams.slice(0, -1).every((beam) => beam === 1)).toBe(true);
    expect(out.beams.at(-1)).toBe(5);
    expect(out.partial).toEqual([]);
    expect(wordErrorRate(SCRIPT, out.text)).toBeLessThanOrEqual(0.1);
  });

  it("decodes a buffer in one pass, the phrase still being spoken at its end included", { timeout: 120_000 }, (ctx) => {
    // The first 8 s of a real meeting, as a live buffer holds them: faster-whisper on its own
    // drops the phrase after the last closed segment and decodes it again as a second window,
    // without the first's context (it does here). Synthetic speech ends cleanly and never does.
    if (!present(ctx, amiMissing("ami_dev00")) || !amiDir) return;
    const buffer = decode(path.join(amiDir, "ami_dev00.wav"), 10, 8 / 30);
    expect(buffer.frames).toEqual([1000]);
    const text = buffer.words.map((w) => w.word).join("");
    expect(text).toMatch(/^ ?Okay, well,? I think we're ready to begin/);
    // What comes after that closed sentence: the phrase being spoken when the buffer ends.
    expect(buffer.words.filter((w) => w.start > 4).length).toBeGreaterThanOrEqual(3);
    for (const [i, word] of buffer.words.entries()) {
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.end).toBeLessThanOrEqual(8.05);
      if (i > 0) expect(word.start).toBeGreaterThanOrEqual(buffer.words[i - 1]!.start);
    }
  });

  it("encodes a short buffer as its own length, not Whisper's 30 s", () => {
    expect(duration).toBeLessThan(9);
    expect(full.frames).toEqual([3000]);
    // The buffer and a second of silence in whole seconds, at least the 10 s floor.
    expect(short.frames).toEqual([1000]);
  });

  it("gives the words of the script, once each, timed as the 30 s decode times them", () => {
    const text = short.words.map((w) => w.word).join("");
    expect(wordErrorRate(SCRIPT, text)).toBeLessThanOrEqual(0.1);
    // No loop: Whisper in a window padded with anything but silence repeats itself.
    expect(short.words.length).toBeLessThanOrEqual(SCRIPT.split(" ").length + 1);
    // The same words as the 30 s decode but for at most one (base heard "renew" for "review").
    expect(short.words.length).toBe(full.words.length);
    expect(wordErrorRate(full.words.map((w) => w.word).join(""), text)).toBeLessThanOrEqual(0.1);
    for (const [i, word] of short.words.entries()) {
      expect(word.start).toBeGreaterThanOrEqual(0);
      expect(word.end).toBeLessThanOrEqual(duration + 0.05);
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(Math.abs(word.start - full.words[i]!.start)).toBeLessThanOrEqual(0.2);
      expect(Math.abs(word.end - full.words[i]!.end)).toBeLessThanOrEqual(0.2);
    }
  });
});

describe.skipIf(engineUnavailable)("live engine: short_window", () => {
  function call(code: string): unknown {
    const script = `import json, sys\nimport numpy as np\nsys.path.insert(0, ${JSON.stringify(engineDir)})\nimport live_engine\n${code}`;
    return JSON.parse(execFileSync(whisperPython, ["-c", script], { encoding: "utf8" }));
  }

  it("cuts faster-whisper's zero padding to the window and fills it with the features of silence", () => {
    const result = call(`
features = np.zeros((80, 3000), np.float32)
features[:, :250] = np.linspace(-0.5, 1.5, 80 * 250, dtype=np.float32).reshape(80, 250)
out = live_engine.short_window(features, 10)
longer = live_engine.short_window(np.ones((1, 80, 3000), np.float32), 10)
off = live_engine.short_window(features, 0)
print(json.dumps({"shape": list(out.shape), "speech": bool((out[:, :250] == features[:, :250]).all()),
  "pad": sorted(set(np.round(out[:, 250:], 4).ravel().tolist())), "longer": list(longer.shape), "off": list(off.shape),
  "windows": [live_engine.encoder_window(n, 10) for n in (0, 250, 900, 901, 1850, 2950, 3000)]}))
`);
    expect(result).toEqual({
      shape: [80, 1000],
      speech: true,
      // Whisper's log-Mel floor is 8 (log10) below the input's maximum: 2 in its normalised scale.
      pad: [-0.5],
      longer: [1, 80, 3000],
      off: [80, 3000],
      windows: [1000, 1000, 1000, 1100, 2000, 3000, 3000],
    });
  });
});
