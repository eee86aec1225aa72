// Model, language and translation choice for a processed file (docs/api.md, docs/requirements.md "Validation"): the
// language is required, and translating English to English is refused (the toggle is
// disabled for "en"). Unavailable models are listed, disabled, with their reason; a model
// whose engine is still being prepared (first start) can be chosen, says how far it is, and
// its job waits for it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, Combobox, FieldError, Input, Label, Select, SelectContent, SelectItem, SelectTrigger, Spinner, type ComboboxOption } from "../../components/ui";
import { billingQueryKeys, TRIAL_LIMIT_ERROR_CODE } from "../../lib/api/billing";
import { ApiError } from "../../lib/api/errors";
import type { Model, TranscriptionSettings } from "../../lib/api/generated/zod.gen";
import { getVocabulary, listModels, queryKeys, startTranscription } from "../../lib/api/product";
import { TrialLimitRefusal } from "../billing/TrialLimitRefusal";
import { DiarizationFields, diarizationSettings, type DiarizationChoice } from "../speakers";
import { transcriptionChoiceSchema, VALIDATION_MESSAGES } from "../../lib/form-rules";

export interface StartTranscriptionFormProps {
  fileId: string;
  onStarted?: (transcriptionId: string) => void;
  onCancel?: () => void;
  /**
   * Where the chosen settings go; by default a new transcription of the file (POST
   * /transcriptions). The transcript page's re-run sends them to POST /transcriptions/{id}/retry.
   */
  submit?: (settings: TranscriptionSettings) => Promise<{ transcriptionId: string; message?: string }>;
  /** Preselected settings (the re-run form starts from the transcript's own). */
  initial?: Partial<TranscriptionSettings>;
  /** The form's accessible name and its submit button's text. */
  label?: string;
  submitLabel?: string;
  cancelLabel?: string;
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

/** A language for the searchable list: "German (de)", found by "germ…" or by its code "de". */
export function languageOption(code: string): ComboboxOption {
  return { value: code, label: languageLabel(code), keywords: code === "auto" ? ["auto", "detect"] : [code] };
}

/** "Preparing the speech engine… 38%" from the server's reason (which also says what it is doing). */
export function preparingLine(reason: string | undefined): string {
  const percent = /Preparing the speech engine…\s*(\d+)%/.exec(reason ?? "")?.[1];
  const detail = /\((.*)\)\s*$/.exec(reason ?? "")?.[1];
  return `Preparing the speech engine…${percent ? ` ${percent}%` : ""}${detail ? ` (${detail})` : ""}.`;
}

export function StartTranscriptionForm({
  fileId,
  onStarted,
  onCancel,
  submit: send,
  initial,
  label = "Start transcription",
  submitLabel = "Start transcription",
  cancelLabel = "Discard",
}: StartTranscriptionFormProps) {
  const queryClient = useQueryClient();
  const models = useQuery({
    queryKey: queryKeys.models,
    queryFn: ({ signal }) => listModels(signal),
    // While the speech engine is being prepared, follow its progress.
    refetchInterval: (query) => (query.state.data?.models.some((m) => m.preparing) ? 3_000 : false),
  });
  const [chosenModel, setChosenModel] = useState<string | undefined>(initial?.model ?? undefined);
  const [language, setLanguage] = useState(initial?.language ?? "");
  const [translate, setTranslate] = useState(initial?.translateToEn ?? false);
  const [diarization, setDiarization] = useState<DiarizationChoice>({
    diarize: initial?.diarize ?? false,
    minSpeakers: initial?.minSpeakers != null ? String(initial.minSpeakers) : "",
    maxSpeakers: initial?.maxSpeakers != null ? String(initial.maxSpeakers) : "",
  });
  const vocabulary = useQuery({ queryKey: queryKeys.vocabulary, queryFn: ({ signal }) => getVocabulary(signal) });
  const userTerms = vocabulary.data?.terms.length ?? 0;
  const [useVocabulary, setUseVocabulary] = useState(initial?.useVocabulary ?? true);
  const [extraTerms, setExtraTerms] = useState((initial?.vocabulary ?? []).join(", "));
  const [errors, setErrors] = useState<{ language?: string; translate?: string; model?: string; speakers?: string }>({});
  // The free plan's refusal stays on the form (with the way to upgrade) rather than in a passing toast.
  const [refusal, setRefusal] = useState<string>();
  const ids = { model: useId(), language: useId(), translate: useId(), languageError: useId(), translateHint: useId(), terms: useId(), termsHint: useId() };

  const catalog = models.data?.models ?? [];
  // A preselected model that cannot run (or be waited for) falls back to the first that can.
  const usable = (m: Model) => m.available || m.preparing === true;
  const chosen = catalog.find((m) => m.id === chosenModel && usable(m));
  const modelId = chosen?.id ?? catalog.find(usable)?.id ?? "";
  const model: Model | undefined = catalog.find((m) => m.id === modelId);
  const languages = model?.languages ?? [];
  const languageOptions = useMemo(() => languages.map(languageOption), [languages]);
  const isEnglish = language === "en";
  const translateDisabled = isEnglish || model?.translation === false;

  const start = useMutation({
    mutationFn: (settings: TranscriptionSettings) =>
      send
        ? send(settings)
        : startTranscription({ fileId, settings }).then((response) => ({
            transcriptionId: response.transcriptionId ?? response.jobId,
            message: response.message,
          })),
    onSuccess: (response) => {
      toast.success(response.message ?? "Transcription started");
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcriptions });
      onStarted?.(response.transcriptionId);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === TRIAL_LIMIT_ERROR_CODE) {
        setRefusal(error.message);
        void queryClient.invalidateQueries({ queryKey: billingQueryKeys.all });
        return;
      }
      toast.error(error.message);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = transcriptionChoiceSchema.safeParse({ model: modelId, language, translateToEn: translateDisabled ? false : translate });
    const speakers = diarizationSettings(diarization);
    if (!parsed.success || "error" in speakers) {
      const next: typeof errors = "error" in speakers ? { speakers: speakers.error } : {};
      if (parsed.success) return setErrors(next);
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
    setRefusal(undefined);
    start.mutate({
      model: parsed.data.model,
      language: parsed.data.language,
      translateToEn: parsed.data.translateToEn,
      ...speakers.settings,
      ...vocabularySettings(extraTerms, userTerms > 0 ? useVocabulary : undefined),
    });
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
    <form className="start-form" onSubmit={submit} noValidate aria-label={label}>
      <div className="field field-half">
        <Label htmlFor={ids.model}>Model</Label>
        <Select
          value={modelId}
          onValueChange={(value) => {
            const next = catalog.find((m) => m.id === value);
            setChosenModel(value);
            if (next && language && !next.languages.includes(language)) setLanguage("");
            if (next && !next.translation) setTranslate(false);
          }}
        >
          <SelectTrigger id={ids.model} placeholder="Select a model" invalid={Boolean(errors.model)} />
          <SelectContent>
            {catalog.map((m) => (
              <SelectItem
                key={m.id}
                value={m.id}
                disabled={!usable(m)}
                description={m.preparing ? "Preparing" : !m.available && m.reason ? `Unavailable: ${m.reason}` : undefined}
              >
                {m.name}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
        {model?.preparing ? (
          <p className="muted field-hint" role="status" data-testid="engine-preparing">
            {preparingLine(model.reason)} You can start now: the transcription begins as soon as it is ready.
          </p>
        ) : model?.reason && model.available ? (
          <p className="muted field-hint">{model.reason}</p>
        ) : null}
        <FieldError id={`${ids.model}-error`}>{errors.model}</FieldError>
      </div>

      <div className="field field-half">
        <Label htmlFor={ids.language}>Language</Label>
        <Combobox
          id={ids.language}
          value={language}
          options={languageOptions}
          placeholder="Select a language"
          searchPlaceholder="Search languages…"
          listLabel="Languages"
          emptyText="No language matches."
          invalid={Boolean(errors.language)}
          aria-describedby={errors.language ? ids.languageError : undefined}
          onValueChange={(value) => {
            setLanguage(value);
            if (value === "en") setTranslate(false);
            setErrors((current) => ({ ...current, language: undefined, translate: undefined }));
          }}
        />
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

      <DiarizationFields
        value={diarization}
        onChange={(next) => {
          setDiarization(next);
          setErrors((current) => ({ ...current, speakers: undefined }));
        }}
        error={errors.speakers}
      />

      <div className="field">
        <Label htmlFor={ids.terms}>Terms for this file</Label>
        <Input
          id={ids.terms}
          value={extraTerms}
          placeholder="Names or words to spell as you write them, comma separated"
          aria-describedby={ids.termsHint}
          onChange={(event) => setExtraTerms(event.target.value)}
        />
        <p id={ids.termsHint} className="muted field-hint">
          Only for this transcription; your own vocabulary is in Account Settings.
        </p>
      </div>
      {userTerms > 0 ? (
        <div className="field field-checkbox">
          <label className="checkbox-label">
            <input type="checkbox" checked={useVocabulary} onChange={(event) => setUseVocabulary(event.target.checked)} /> Use my vocabulary (
            {userTerms} {userTerms === 1 ? "term" : "terms"})
          </label>
        </div>
      ) : null}

      {refusal ? <TrialLimitRefusal message={refusal} /> : null}

      <div className="form-actions">
        <Button type="submit" variant="primary" loading={start.isPending} disabled={!model || !usable(model)}>
          {submitLabel}
        </Button>
        {onCancel ? (
          <Button variant="ghost" onClick={onCancel} disabled={start.isPending}>
            {cancelLabel}
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/** The start form's vocabulary choice as settings: the extra terms, and the user's list only when it has terms. */
export function vocabularySettings(extraTerms: string, useVocabulary: boolean | undefined): { vocabulary?: string[]; useVocabulary?: boolean } {
  const vocabulary = extraTerms
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  return { ...(vocabulary.length ? { vocabulary } : {}), ...(useVocabulary === false ? { useVocabulary: false } : {}) };
}
