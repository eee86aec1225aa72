// Model, language and translation choice for a processed file (issue 6, spec §5): the
// language is required, and translating English to English is refused (the toggle is
// disabled for "en"). Unavailable models are listed, disabled, with their reason.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, FieldError, Label, Spinner } from "../../components/ui";
import { listModels, queryKeys, startTranscription } from "../../lib/api/product";
import { startTranscriptionRequestSchema, VALIDATION_MESSAGES, type SpeechModel } from "../../lib/api/schemas";

export interface StartTranscriptionFormProps {
  fileId: string;
  onStarted?: (transcriptionId: string) => void;
  onCancel?: () => void;
}

const languageNames = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" });
  } catch {
    return undefined;
  }
})();

export function languageLabel(code: string): string {
  if (code === "auto") return "Detect automatically";
  try {
    const name = languageNames?.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

export function StartTranscriptionForm({ fileId, onStarted, onCancel }: StartTranscriptionFormProps) {
  const queryClient = useQueryClient();
  const models = useQuery({ queryKey: queryKeys.models, queryFn: ({ signal }) => listModels(signal) });
  const [chosenModel, setChosenModel] = useState<string | undefined>(undefined);
  const [language, setLanguage] = useState("");
  const [translate, setTranslate] = useState(false);
  const [errors, setErrors] = useState<{ language?: string; translate?: string; model?: string }>({});
  const ids = { model: useId(), language: useId(), translate: useId(), languageError: useId(), translateHint: useId() };

  const catalog = models.data?.models ?? [];
  const modelId = chosenModel ?? catalog.find((m) => m.available)?.id ?? "";
  const model: SpeechModel | undefined = catalog.find((m) => m.id === modelId);
  const languages = model?.languages ?? [];
  const isEnglish = language === "en";
  const translateDisabled = isEnglish || model?.translation === false;

  const start = useMutation({
    mutationFn: startTranscription,
    onSuccess: (response) => {
      toast.success(response.message ?? "Transcription started");
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcriptions });
      onStarted?.(response.transcriptionId ?? response.jobId);
    },
    onError: (error) => toast.error(error.message),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = startTranscriptionRequestSchema.safeParse({
      fileId,
      settings: { model: modelId, language, translateToEn: translateDisabled ? false : translate },
    });
    if (!parsed.success) {
      const next: typeof errors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path.at(-1);
        if (field === "language") next.language ??= issue.message;
        else if (field === "translateToEn") next.translate ??= issue.message;
        else if (field === "model") next.model ??= "Please select a model";
      }
      setErrors(next);
      return;
    }
    setErrors({});
    start.mutate({ fileId, settings: { model: parsed.data.settings.model, language: parsed.data.settings.language, translateToEn: parsed.data.settings.translateToEn } });
  };

  if (models.isPending) return <Spinner label="Loading models…" />;
  if (models.isError) {
    return (
      <p role="alert" className="field-error">
        Could not load the models: {models.error.message}{" "}
        <Button size="sm" onClick={() => void models.refetch()}>
          Retry
        </Button>
      </p>
    );
  }

  return (
    <form className="start-form" onSubmit={submit} noValidate aria-label="Start transcription">
      <div className="field">
        <Label htmlFor={ids.model}>Model</Label>
        <select
          id={ids.model}
          className="input select"
          value={modelId}
          onChange={(event) => {
            const next = catalog.find((m) => m.id === event.target.value);
            setChosenModel(event.target.value);
            if (next && language && !next.languages.includes(language)) setLanguage("");
            if (next && !next.translation) setTranslate(false);
          }}
        >
          {catalog.map((m) => (
            <option key={m.id} value={m.id} disabled={!m.available} title={m.reason}>
              {m.name}
              {!m.available && m.reason ? ` — unavailable: ${m.reason}` : ""}
            </option>
          ))}
        </select>
        {model?.reason && model.available ? <p className="muted field-hint">{model.reason}</p> : null}
        <FieldError id={`${ids.model}-error`}>{errors.model}</FieldError>
      </div>

      <div className="field">
        <Label htmlFor={ids.language}>Language</Label>
        <select
          id={ids.language}
          className="input select"
          value={language}
          required
          aria-invalid={errors.language ? true : undefined}
          aria-describedby={errors.language ? ids.languageError : undefined}
          onChange={(event) => {
            setLanguage(event.target.value);
            if (event.target.value === "en") setTranslate(false);
            setErrors((current) => ({ ...current, language: undefined, translate: undefined }));
          }}
        >
          <option value="">Select a language</option>
          {languages.map((code) => (
            <option key={code} value={code}>
              {languageLabel(code)}
            </option>
          ))}
        </select>
        <FieldError id={ids.languageError}>{errors.language}</FieldError>
      </div>

      <div className="field field-checkbox">
        <label className="checkbox-label">
          <input
            id={ids.translate}
            type="checkbox"
            checked={translate && !translateDisabled}
            disabled={translateDisabled}
            aria-describedby={translateDisabled ? ids.translateHint : undefined}
            onChange={(event) => setTranslate(event.target.checked)}
          />{" "}
          Translate to English
        </label>
        {isEnglish ? (
          <p id={ids.translateHint} className="muted field-hint">
            {VALIDATION_MESSAGES.englishToEnglish}
          </p>
        ) : model?.translation === false ? (
          <p id={ids.translateHint} className="muted field-hint">
            This model cannot translate.
          </p>
        ) : null}
        <FieldError id={`${ids.translate}-error`}>{errors.translate}</FieldError>
      </div>

      <div className="button-row">
        <Button type="submit" variant="primary" loading={start.isPending} disabled={!model?.available}>
          Start transcription
        </Button>
        {onCancel ? (
          <Button variant="ghost" onClick={onCancel} disabled={start.isPending}>
            Discard
          </Button>
        ) : null}
      </div>
    </form>
  );
}
