// Rename, shared by the dashboard table and the transcript page (docs/requirements.md "Validation": trimmed,
// 'Name cannot be empty', 'Name is too long' above 255).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, Dialog, DialogClose, DialogContent, DialogFooter, FieldError, Input, Label } from "../../components/ui";
import { queryKeys, renameTranscription } from "../../lib/api/product";
import { renameFormSchema } from "../../lib/form-rules";

export interface RenameDialogProps {
  id: string;
  currentName: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function RenameDialog({ id, currentName, open, onOpenChange }: RenameDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? <RenameForm id={id} currentName={currentName} onDone={() => onOpenChange(false)} /> : null}
    </Dialog>
  );
}

function RenameForm({ id, currentName, onDone }: { id: string; currentName: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(currentName);
  const [error, setError] = useState<string | undefined>();
  const inputId = useId();
  const errorId = useId();

  const rename = useMutation({
    mutationFn: (newName: string) => renameTranscription(id, newName),
    onSuccess: () => {
      toast.success("Renamed");
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcriptions });
      onDone();
    },
    onError: (err) => setError(err.message),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = renameFormSchema.safeParse({ newName: name });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    rename.mutate(parsed.data.newName);
  };

  return (
    <DialogContent title="Rename transcription">
      <form onSubmit={submit} noValidate>
        <Label htmlFor={inputId}>Name</Label>
        <Input
          id={inputId}
          value={name}
          autoFocus
          invalid={error !== undefined}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => {
            setName(event.target.value);
            setError(undefined);
          }}
        />
        <FieldError id={errorId}>{error}</FieldError>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="ghost">Cancel</Button>
          </DialogClose>
          <Button type="submit" variant="primary" loading={rename.isPending}>
            Save
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
