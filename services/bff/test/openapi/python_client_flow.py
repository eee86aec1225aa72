"""An integrator's script, written against the client openapi-python-client generated from the
served document (importable as `transcribe_api_client` from CLIENT_DIR). generated-clients.test.ts
runs it against the running product and checks what it prints (one JSON object).

Environment: CLIENT_DIR, BASE_URL, CREDENTIAL (an API key, tsk_…),
AUDIO_PATH, AUDIO_DURATION, POLL_SECONDS.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.environ["CLIENT_DIR"])

import httpx  # noqa: E402  (the generated client's own HTTP library)
from transcribe_api_client import AuthenticatedClient  # noqa: E402
from transcribe_api_client.api.exports import export_transcription  # noqa: E402
from transcribe_api_client.api.files import create_upload, get_file  # noqa: E402
from transcribe_api_client.api.transcriptions import create_transcription, get_transcription, list_models  # noqa: E402
from transcribe_api_client.models import (  # noqa: E402
    ApiError,
    ExportRequest,
    ExportRequestFormat,
    StartTranscription,
    TranscriptionSettings,
    UploadRequest,
)

BASE_URL = os.environ["BASE_URL"]


def client_for(credential: str) -> AuthenticatedClient:
    # An API key as `Authorization: Bearer tsk_…` (the document's apiKeyBearer scheme).
    return AuthenticatedClient(base_url=BASE_URL, token=credential, raise_on_unexpected_status=True)


def main() -> None:
    client = client_for(os.environ["CREDENTIAL"])
    out: dict = {}

    models = list_models.sync(client=client)
    assert not isinstance(models, ApiError), models
    out["models"] = [m.id for m in models.models if m.available]

    audio = open(os.environ["AUDIO_PATH"], "rb").read()
    upload = create_upload.sync(
        client=client,
        body=UploadRequest(file_name="board.wav", file_size=len(audio), content_type="audio/wav", duration=float(os.environ["AUDIO_DURATION"])),
    )
    assert not isinstance(upload, ApiError), upload
    # Step 2 of the documented upload flow: PUT the bytes to the signed URL.
    put = client.get_httpx_client().put(upload.upload_url, content=audio, headers={"content-type": "audio/wav"})
    out["put_status"] = put.status_code

    started = create_transcription.sync(
        client=client,
        body=StartTranscription(file_id=upload.file_id, settings=TranscriptionSettings(model="whisper-base", language="en")),
    )
    assert not isinstance(started, ApiError), started

    deadline = time.time() + float(os.environ.get("POLL_SECONDS", "300"))
    detail = get_transcription.sync(id=started.transcription_id, client=client)
    while detail.status.value not in ("completed", "failed") and time.time() < deadline:
        time.sleep(1)
        detail = get_transcription.sync(id=started.transcription_id, client=client)
    out["status"] = detail.status.value
    out["file_status"] = get_file.sync(id=upload.file_id, client=client).status.value
    out["segments"] = len(detail.result.segments) if detail.result else 0

    exported = export_transcription.sync(id=started.transcription_id, client=client, body=ExportRequest(format_=ExportRequestFormat.SRT))
    assert not isinstance(exported, ApiError), exported
    out["export_format"] = exported.format_.value
    out["srt"] = httpx.get(exported.download_url).text

    refused = list_models.sync_detailed(client=client_for("tsk_not-a-key"))
    out["bad_status"] = int(refused.status_code)
    out["bad_error_code"] = refused.parsed.error.code if isinstance(refused.parsed, ApiError) else None

    print(json.dumps(out))


main()
