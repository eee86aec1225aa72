// The support and contact forms: labelled fields, a send button, the server's error, and a
// confirmation once the message is stored and on its way.
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, FieldError, Input, Label } from "./ui";

export interface MessageField {
  name: string;
  label: string;
  type?: "text" | "email" | "textarea";
  required?: boolean;
  maxLength: number;
}

export interface MessageFormProps {
  fields: MessageField[];
  submitLabel: string;
  confirmation: string;
  send: (values: Record<string, string>) => Promise<unknown>;
}

export function MessageForm({ fields, submitLabel, confirmation, send }: MessageFormProps) {
  const [values, setValues] = useState<Record<string, string>>({});
  const mutation = useMutation({ mutationFn: send });

  if (mutation.isSuccess) {
    return (
      <div role="status" className="card">
        <p>{confirmation}</p>
        <Button
          variant="secondary"
          onClick={() => {
            setValues({});
            mutation.reset();
          }}
        >
          Send another message
        </Button>
      </div>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()]).filter(([, v]) => v !== ""));
    mutation.mutate(trimmed);
  };

  return (
    <form className="stack" onSubmit={submit} noValidate={false}>
      {fields.map((field) => {
        const id = `message-${field.name}`;
        const common = {
          id,
          name: field.name,
          required: field.required ?? false,
          maxLength: field.maxLength,
          value: values[field.name] ?? "",
        };
        return (
          <div key={field.name} className="field">
            <Label htmlFor={id}>{field.label}</Label>
            {field.type === "textarea" ? (
              <textarea
                className="input"
                rows={6}
                {...common}
                onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))}
              />
            ) : (
              <Input type={field.type ?? "text"} {...common} onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))} />
            )}
          </div>
        );
      })}
      <FieldError id="message-error">{mutation.isError ? (mutation.error as Error).message : undefined}</FieldError>
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        {mutation.isPending ? "Sending…" : submitLabel}
      </Button>
    </form>
  );
}
