// Account Settings → API keys and Webhooks (docs/api.md "Use it from code"). A secret is
// shown once, right after it was created, with a copy button; the lists never hold one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { Badge, Button, FieldError, Input, Label } from "../../components/ui";
import {
  createApiKey,
  createWebhook,
  deleteWebhook,
  developerQueryKeys,
  listApiKeys,
  listDeliveries,
  listWebhooks,
  resendDelivery,
  revokeApiKey,
} from "../../lib/api/developer";
import { type Webhook, zWebhook } from "../../lib/api/generated/zod.gen";

type WebhookEvent = Webhook["events"][number];
const webhookEventNames = zWebhook.shape.events.element.options;
import { formatDateTime } from "../../lib/format";
import { Section } from "./Section";

/** A secret in a read-only field with a copy button; gone once dismissed. */
function OneTimeSecret({ label, value, onDone, testId }: { label: string; value: string; onDone: () => void; testId: string }) {
  const id = useId();
  return (
    <div className="stack notice" role="status" data-testid={testId}>
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} readOnly value={value} onFocus={(event) => event.target.select()} data-testid={`${testId}-value`} />
      <p className="muted small">Copy it now: it is not shown again.</p>
      <div className="button-row">
        <Button
          size="sm"
          variant="secondary"
          onClick={() => navigator.clipboard.writeText(value).then(() => toast.success("Copied"), () => toast.error("Copy failed; select the text instead"))}
        >
          Copy
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

export function ApiKeysSection() {
  const queryClient = useQueryClient();
  const nameId = useId();
  const expiryId = useId();
  const errorId = useId();
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [secret, setSecret] = useState<string>();
  const keys = useQuery({ queryKey: developerQueryKeys.apiKeys, queryFn: ({ signal }) => listApiKeys(signal) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: developerQueryKeys.apiKeys });
  const create = useMutation({
    mutationFn: () => createApiKey({ name: name.trim(), ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}) }),
    onSuccess: async (created) => {
      setSecret(created.key);
      setName("");
      setExpires("");
      await refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: revokeApiKey,
    onSuccess: async () => {
      toast.success("API key revoked");
      await refresh();
    },
    onError: (cause) => toast.error(cause.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <Section
      title="API keys"
      description="Use a key as “Authorization: Bearer …” with the OpenAI-compatible /v1 endpoints and the transcription API. A key cannot change your account."
      testId="account-api-keys"
    >
      {secret ? <OneTimeSecret label="Your new API key" value={secret} onDone={() => setSecret(undefined)} testId="api-key-secret" /> : null}
      <form className="stack" onSubmit={submit}>
        <Label htmlFor={nameId}>Name</Label>
        <Input id={nameId} value={name} maxLength={100} onChange={(event) => setName(event.target.value)} invalid={Boolean(create.error)} aria-describedby={create.error ? errorId : undefined} data-testid="api-key-name" />
        <Label htmlFor={expiryId}>Expires (optional)</Label>
        <Input id={expiryId} type="date" value={expires} onChange={(event) => setExpires(event.target.value)} data-testid="api-key-expires" />
        <FieldError id={errorId}>{create.error?.message}</FieldError>
        <div className="button-row">
          <Button type="submit" variant="primary" loading={create.isPending} disabled={!name.trim()} data-testid="api-key-create">
            Create key
          </Button>
        </div>
      </form>
      {keys.isPending ? <p className="muted">Loading…</p> : null}
      {keys.error ? <p role="alert">{keys.error.message}</p> : null}
      {keys.data && keys.data.apiKeys.length === 0 ? <p className="muted">No API keys yet.</p> : null}
      {keys.data && keys.data.apiKeys.length > 0 ? (
        <ul className="account-list" aria-label="API keys">
          {keys.data.apiKeys.map((key) => (
            <li key={key.id} data-testid="api-key">
              <span>
                {key.name} <code>{key.prefix}…</code>
                <span className="muted small">
                  {" "}
                  · created {formatDateTime(key.createdAt)} · {key.lastUsedAt ? `last used ${formatDateTime(key.lastUsedAt)}` : "never used"}
                  {key.expiresAt ? ` · expires ${formatDateTime(key.expiresAt)}` : ""}
                </span>
              </span>
              <Button size="sm" variant="ghost" loading={revoke.isPending && revoke.variables === key.id} onClick={() => revoke.mutate(key.id)} data-testid="api-key-revoke">
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const deliveries = useQuery({ queryKey: developerQueryKeys.deliveries(webhookId), queryFn: ({ signal }) => listDeliveries(webhookId, signal) });
  const resend = useMutation({
    mutationFn: (deliveryId: string) => resendDelivery(webhookId, deliveryId),
    onSuccess: async () => {
      toast.success("Delivery queued again");
      await queryClient.invalidateQueries({ queryKey: developerQueryKeys.deliveries(webhookId) });
    },
    onError: (cause) => toast.error(cause.message),
  });
  if (deliveries.isPending) return <p className="muted">Loading…</p>;
  if (deliveries.error) return <p role="alert">{deliveries.error.message}</p>;
  if (deliveries.data.deliveries.length === 0) return <p className="muted small">No deliveries yet.</p>;
  return (
    <ul className="account-list" aria-label="Deliveries">
      {deliveries.data.deliveries.map((delivery) => (
        <li key={delivery.id} data-testid="webhook-delivery">
          <span>
            {delivery.eventType}{" "}
            <Badge variant={delivery.status === "succeeded" ? "success" : delivery.status === "failed" ? "danger" : "info"}>{delivery.status}</Badge>
            <span className="muted small">
              {" "}
              · {formatDateTime(delivery.createdAt)} · {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
              {delivery.lastStatusCode !== null ? ` · HTTP ${delivery.lastStatusCode}` : ""}
              {delivery.lastError ? ` · ${delivery.lastError}` : ""}
            </span>
          </span>
          <Button size="sm" variant="ghost" loading={resend.isPending && resend.variables === delivery.id} onClick={() => resend.mutate(delivery.id)} data-testid="webhook-resend">
            Resend
          </Button>
        </li>
      ))}
    </ul>
  );
}

export function WebhooksSection() {
  const queryClient = useQueryClient();
  const urlId = useId();
  const errorId = useId();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEvent[]>(["transcription.completed"]);
  const [secret, setSecret] = useState<string>();
  const [open, setOpen] = useState<string>();
  const hooks = useQuery({ queryKey: developerQueryKeys.webhooks, queryFn: ({ signal }) => listWebhooks(signal) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: developerQueryKeys.webhooks });
  const create = useMutation({
    mutationFn: () => createWebhook({ url: url.trim(), events }),
    onSuccess: async (created) => {
      setSecret(created.secret);
      setUrl("");
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: deleteWebhook,
    onSuccess: async () => {
      toast.success("Webhook removed");
      await refresh();
    },
    onError: (cause) => toast.error(cause.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const toggle = (name: WebhookEvent) => setEvents((current) => (current.includes(name) ? current.filter((e) => e !== name) : [...current, name]));

  return (
    <Section
      title="Webhooks"
      description="We POST a signed message (Standard Webhooks) to your URL when a transcription completes or fails, and retry for a day until it answers 2xx."
      testId="account-webhooks"
    >
      {secret ? <OneTimeSecret label="Signing secret" value={secret} onDone={() => setSecret(undefined)} testId="webhook-secret" /> : null}
      <form className="stack" onSubmit={submit}>
        <Label htmlFor={urlId}>Endpoint URL</Label>
        <Input id={urlId} type="url" value={url} placeholder="https://example.com/hooks/transcribe" onChange={(event) => setUrl(event.target.value)} invalid={Boolean(create.error)} aria-describedby={create.error ? errorId : undefined} data-testid="webhook-url" />
        <fieldset className="stack">
          <legend>Events</legend>
          {webhookEventNames.map((name) => (
            <label key={name} className="checkbox-row">
              <input type="checkbox" checked={events.includes(name)} onChange={() => toggle(name)} /> {name}
            </label>
          ))}
        </fieldset>
        <FieldError id={errorId}>{create.error?.message}</FieldError>
        <div className="button-row">
          <Button type="submit" variant="primary" loading={create.isPending} disabled={!url.trim() || events.length === 0} data-testid="webhook-create">
            Add webhook
          </Button>
        </div>
      </form>
      {hooks.isPending ? <p className="muted">Loading…</p> : null}
      {hooks.error ? <p role="alert">{hooks.error.message}</p> : null}
      {hooks.data && hooks.data.webhooks.length === 0 ? <p className="muted">No webhooks yet.</p> : null}
      {hooks.data && hooks.data.webhooks.length > 0 ? (
        <ul className="account-list" aria-label="Webhooks">
          {hooks.data.webhooks.map((hook) => (
            <li key={hook.id} data-testid="webhook" className="stack">
              <span>
                <code>{hook.url}</code>
                <span className="muted small"> · {hook.events.join(", ")}</span>
              </span>
              <div className="button-row">
                <Button size="sm" variant="ghost" onClick={() => setOpen(open === hook.id ? undefined : hook.id)} data-testid="webhook-deliveries">
                  {open === hook.id ? "Hide deliveries" : "Deliveries"}
                </Button>
                <Button size="sm" variant="ghost" loading={remove.isPending && remove.variables === hook.id} onClick={() => remove.mutate(hook.id)} data-testid="webhook-remove">
                  Remove
                </Button>
              </div>
              {open === hook.id ? <Deliveries webhookId={hook.id} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}
