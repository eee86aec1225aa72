import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { Button, Dialog, DialogClose, DialogContent, DialogFooter } from "../../components/ui";
import { deleteTranscription, queryKeys } from "../../lib/api/product";

export interface DeleteDialogProps {
  id: string;
  name: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDeleted?: () => void;
}

export function DeleteDialog({ id, name, open, onOpenChange, onDeleted }: DeleteDialogProps) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteTranscription(id),
    onSuccess: () => {
      toast.success("Transcription deleted");
      queryClient.removeQueries({ queryKey: queryKeys.transcription(id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcriptions });
      onOpenChange(false);
      onDeleted?.();
    },
    onError: (error) => toast.error(error.message),
  });

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title="Delete transcription?" description={`"${name}" and its audio will be deleted. This cannot be undone.`}>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="ghost">Cancel</Button>
          </DialogClose>
          <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate()}>
            Delete
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
