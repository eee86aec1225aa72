// Account Settings → Speech models, for administrators (ADMIN_EMAILS): the local models of
// the catalog with what each needs, a download with its progress, and removal.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Badge, Button, Dialog, DialogClose, DialogContent, DialogFooter } from "../../components/ui";
import { downloadModel, getMe, listModels, queryKeys, removeModel } from "../../lib/api/product";
import type { Model as SpeechModel } from "../../lib/api/generated/zod.gen";
import { Section } from "./Section";

const POLL_MS = 1_000;

function size(bytes: number | undefined): string {
  if (bytes === undefined) return "?";
  return bytes >= 1_000_000_000 ? `${(bytes / 1_000_000_000).toFixed(1)} GB` : `${Math.round(bytes / 1_000_000)} MB`;
}

function languagesOf(model: SpeechModel): string {
  const codes = model.languages.filter((l) => l !== "auto");
  return codes.length === 1 ? `${codes[0]!.toUpperCase()} only` : `${codes.length} languages`;
}

/** Shown only to an administrator; renders nothing for everyone else. */
export function SpeechModelsSection() {
  const me = useQuery({ queryKey: queryKeys.me, queryFn: ({ signal }) => getMe(signal) });
  if (!me.data?.isAdmin) return null;
  return <SpeechModelsAdmin />;
}

function SpeechModelsAdmin() {
  const queryClient = useQueryClient();
  const models = useQuery({
    queryKey: queryKeys.models,
    queryFn: ({ signal }) => listModels(signal),
    refetchInterval: (query) => (query.state.data?.models.some((m) => m.download) ? POLL_MS : false),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.models });
  const download = useMutation({
    mutationFn: downloadModel,
    onSuccess: async () => refresh(),
    onError: (error) => toast.error(error.message),
  });
  const [removing, setRemoving] = useState<SpeechModel>();
  const remove = useMutation({
    mutationFn: removeModel,
    onSuccess: async (result) => {
      setRemoving(undefined);
      toast.success(result.removed ? `${result.model.name} removed` : "There were no files to remove");
      await refresh();
    },
  });
  const local = models.data?.models.filter((m) => m.provider === "local") ?? [];

  return (
    <Section
      title="Speech models"
      description="Models that run on this server. A model that is not downloaded yet downloads when first used; download it now to spare the first user the wait."
      testId="account-models"
    >
      {models.isPending ? <p className="muted">Loading…</p> : null}
      {models.error ? <p role="alert">{models.error.message}</p> : null}
      <ul className="stack" aria-label="Speech models">
        {local.map((model) => (
          <li key={model.id} className="stack" data-testid={`model-${model.id}`}>
            <div className="button-row">
              <strong>{model.name}</strong>
              {model.present ? <Badge variant="success">Downloaded</Badge> : model.download ? <Badge>Downloading</Badge> : <Badge variant="neutral">Not downloaded</Badge>}
            </div>
            <p className="muted small">
              {size(model.downloadBytes)} download · needs {size(model.ramBytes)} of memory · {languagesOf(model)} ·{" "}
              {model.translation ? "can translate to English" : "cannot translate"}
            </p>
            {model.download ? (
              <div className="stack">
                <progress
                  max={model.download.totalBytes ?? 1}
                  value={model.download.totalBytes ? model.download.doneBytes : undefined}
                  aria-label={`Download of ${model.name}`}
                  data-testid={`model-${model.id}-progress`}
                />
                <span className="muted small">{model.reason}</span>
              </div>
            ) : !model.available && !model.present ? (
              <p className="muted small">{model.reason}</p>
            ) : null}
            <div className="button-row">
              {!model.present && !model.download && model.preparing ? (
                <Button size="sm" loading={download.isPending && download.variables === model.id} onClick={() => download.mutate(model.id)} data-testid={`model-${model.id}-download`}>
                  Download
                </Button>
              ) : null}
              {model.present ? (
                <Button size="sm" variant="danger" onClick={() => setRemoving(model)} data-testid={`model-${model.id}-remove`}>
                  Remove…
                </Button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
      <Dialog
        open={removing !== undefined}
        onOpenChange={(open) => {
          if (!open) {
            setRemoving(undefined);
            remove.reset();
          }
        }}
      >
        <DialogContent
          title={`Remove ${removing?.name ?? "the model"}?`}
          description="Its files are deleted from this server. It downloads again when someone picks it."
        >
          {remove.error ? <p role="alert">{remove.error.message}</p> : null}
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="ghost">Cancel</Button>
            </DialogClose>
            <Button variant="danger" loading={remove.isPending} onClick={() => removing && remove.mutate(removing.id)} data-testid="model-remove-confirm">
              Remove
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Section>
  );
}
