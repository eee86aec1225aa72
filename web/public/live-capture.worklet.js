// The live page's microphone tap (an AudioWorklet, so capture never waits on the page's
// main thread). The AudioContext runs at 16 kHz, so the browser has already resampled
// the microphone; this turns Float32 blocks of 128 samples into 16-bit little-endian PCM
// frames of 100 ms, each posted with its RMS level for the meter.
const FRAME_SAMPLES = 1600;

class LiveCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.frame = new Int16Array(FRAME_SAMPLES);
    this.filled = 0;
    this.sumSquares = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      const sample = Math.max(-1, Math.min(1, channel[i]));
      this.sumSquares += sample * sample;
      this.frame[this.filled++] = sample < 0 ? sample * 0x8000 : sample * 0x7fff;
      if (this.filled === FRAME_SAMPLES) {
        const level = Math.sqrt(this.sumSquares / FRAME_SAMPLES);
        const pcm = this.frame.buffer.slice(0);
        this.port.postMessage({ pcm, level }, [pcm]);
        this.filled = 0;
        this.sumSquares = 0;
      }
    }
    return true;
  }
}

registerProcessor("live-capture", LiveCapture);
