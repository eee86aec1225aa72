// Account Settings → Vocabulary (decision 0029): names, products and jargon as they should
// be spelled, edited as text (one term a line, the same format as the file it imports and
// exports). The server checks the limits; its message is shown as is.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { Button, FieldError, Label } from "../../components/ui";
import { getVocabulary, queryKeys, saveVocabulary } from "../../lib/api/product";
import { Section } from "./Section";
import { formatVocabulary, parseVocabulary } from "./vocabulary-text";

export function VocabularySection() {
  const queryClient = useQueryClient();
  const vocabulary = useQuery({ queryKey: queryKeys.vocabulary, queryFn: ({ signal }) => getVocabulary(signal) });
  const [text, setText] = useState<string>();
  const [error, setError] = useState<string>();
  const ids = { text: useId(), hint: useId(), error: useId() };
  const fileInput = useRef<HTMLInputElement>(null);
  const saved = vocabulary.data ? formatVocabulary(vocabulary.data.terms) : "";
  useEffect(() => {
    if (vocabulary.data && text === undefined) setText(formatVocabulary(vocabulary.data.terms));
  }, [vocabulary.data, text]);

  const save = useMutation({
    mutationFn: () => saveVocabulary(parseVocabulary(text ?? "")),
    onSuccess: (answer) => {
      setError(undefined);
      setText(formatVocabulary(answer.terms));
      queryClient.setQueryData(queryKeys.vocabulary, answer);
      toast.success(`Vocabulary saved (${answer.terms.length} ${answer.terms.length === 1 ? "term" : "terms"})`);
    },
    onError: (failure) => setError(failure.message),
  });

  const exportFile = () => {
    const url = URL.createObjectURL(new Blob([`${saved}\n`], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "vocabulary.txt";
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <Section
      title="Vocabulary"
      description="Names, products and jargon as you spell them. Every transcription hears them (you can turn it off for one file), and what they are often misheard as is replaced in finished transcripts."
      testId="account-vocabulary"
    >
      {vocabulary.isPending ? <p className="muted">Loading…</p> : null}
      {vocabulary.error ? <p role="alert">{vocabulary.error.message}</p> : null}
      <div className="field">
        <Label htmlFor={ids.text}>Terms</Label>
        <textarea
          id={ids.text}
          className="input"
          rows={8}
          value={text ?? ""}
          placeholder={"Real Reaction\nEyeLink | eye link, I link\nZürich | zurich | de"}
          aria-describedby={`${ids.hint}${error ? ` ${ids.error}` : ""}`}
          aria-invalid={error ? true : undefined}
          onChange={(event) => setText(event.target.value)}
        />
        <p id={ids.hint} className="muted field-hint">
          One term a line. After a "|": what it sounds like (comma separated); after a second "|": its language code. At most 500 terms of 100
          characters.
        </p>
        <FieldError id={ids.error}>{error}</FieldError>
      </div>
      <div className="button-row">
        <Button variant="primary" loading={save.isPending} onClick={() => save.mutate()} disabled={text === undefined || text === saved}>
          Save vocabulary
        </Button>
        <Button onClick={() => fileInput.current?.click()}>Import a text file</Button>
        <Button onClick={exportFile} disabled={!saved}>
          Export
        </Button>
        <input
          ref={fileInput}
          type="file"
          accept=".txt,text/plain"
          hidden
          aria-label="Vocabulary file to import"
          onChange={async (event) => {
            const file = event.target.files?.[0];
            event.target.value = "";
            if (!file) return;
            setText(await file.text());
            toast.message("Imported: check the terms, then save");
          }}
        />
      </div>
    </Section>
  );
}
