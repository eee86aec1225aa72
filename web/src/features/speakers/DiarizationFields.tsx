// The start form's and re-run dialog's speaker settings: identify speakers or not, and
// optionally how many there are (1–20; left empty, the number is estimated).
import { useId } from "react";
import { FieldError, Input, Label } from "../../components/ui";
import { MAX_SPEAKERS } from "../../lib/form-rules";

export interface DiarizationChoice {
  diarize: boolean;
  minSpeakers: string;
  maxSpeakers: string;
}

export const NO_DIARIZATION: DiarizationChoice = { diarize: false, minSpeakers: "", maxSpeakers: "" };

/** The choice as API settings, or the message to show. */
export function diarizationSettings(choice: DiarizationChoice): { settings: { diarize?: boolean; minSpeakers?: number; maxSpeakers?: number } } | { error: string } {
  if (!choice.diarize) return { settings: {} };
  const parse = (value: string, label: string) => {
    if (!value.trim()) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > MAX_SPEAKERS) throw new Error(`${label} number of speakers must be a whole number from 1 to ${MAX_SPEAKERS}`);
    return n;
  };
  try {
    const min = parse(choice.minSpeakers, "Minimum");
    const max = parse(choice.maxSpeakers, "Maximum");
    if (min !== undefined && max !== undefined && min > max) return { error: "Minimum number of speakers cannot be more than the maximum" };
    return { settings: { diarize: true, ...(min !== undefined ? { minSpeakers: min } : {}), ...(max !== undefined ? { maxSpeakers: max } : {}) } };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

export function DiarizationFields({
  value,
  onChange,
  error,
  toggle = true,
}: {
  value: DiarizationChoice;
  onChange: (next: DiarizationChoice) => void;
  error?: string | undefined;
  /** Off in the "identify speakers again" dialog, where diarization is the point. */
  toggle?: boolean;
}) {
  const ids = { min: useId(), max: useId(), error: useId() };
  return (
    <div className="field diarization-fields">
      {toggle ? (
        <label className="checkbox-label">
          <input type="checkbox" checked={value.diarize} onChange={(event) => onChange({ ...value, diarize: event.target.checked })} /> Identify speakers
        </label>
      ) : null}
      {value.diarize ? (
        <div className="speaker-counts">
          <div>
            <Label htmlFor={ids.min}>Min speakers</Label>
            <Input
              id={ids.min}
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_SPEAKERS}
              placeholder="auto"
              value={value.minSpeakers}
              invalid={Boolean(error)}
              aria-describedby={error ? ids.error : undefined}
              onChange={(event) => onChange({ ...value, minSpeakers: event.target.value })}
            />
          </div>
          <div>
            <Label htmlFor={ids.max}>Max speakers</Label>
            <Input
              id={ids.max}
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_SPEAKERS}
              placeholder="auto"
              value={value.maxSpeakers}
              invalid={Boolean(error)}
              aria-describedby={error ? ids.error : undefined}
              onChange={(event) => onChange({ ...value, maxSpeakers: event.target.value })}
            />
          </div>
        </div>
      ) : null}
      {value.diarize ? <p className="muted field-hint">Leave the counts empty to let the number of speakers be estimated.</p> : null}
      <FieldError id={ids.error}>{error}</FieldError>
    </div>
  );
}
