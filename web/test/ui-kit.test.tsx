// The UI kit's accessibility contract: names, states and keyboard behaviour.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useId } from "react";
import { describe, expect, it, vi } from "vitest";
import {
  Badge,
  Button,
  buttonClassName,
  Dialog,
  DialogClose,
  DialogContent,
  DialogFooter,
  DialogTrigger,
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
  FieldError,
  Input,
  Label,
  Spinner,
} from "../src/components/ui";

describe("Button", () => {
  it("is a non-submitting button with the variant and size classes", () => {
    render(
      <Button variant="danger" size="sm">
        Delete
      </Button>,
    );
    const button = screen.getByRole("button", { name: "Delete" });
    expect(button).toHaveAttribute("type", "button");
    expect(button).toHaveClass("button", "button-danger", "button-sm");
  });

  it("while loading: busy, not clickable, label kept", () => {
    const onClick = vi.fn();
    render(
      <Button loading onClick={onClick}>
        Save
      </Button>,
    );
    const button = screen.getByRole("button", { name: "Save" });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute("aria-busy", "true");
    fireEvent.click(button);
    expect(onClick).not.toHaveBeenCalled();
  });

  it("links can share the look", () => {
    expect(buttonClassName({ variant: "primary", block: true })).toBe("button button-primary button-block");
    expect(buttonClassName()).toBe("button button-secondary");
  });
});

describe("form fields", () => {
  function EmailField({ error }: { error?: string }) {
    const id = useId();
    return (
      <>
        <Label htmlFor={id}>E-mail</Label>
        <Input id={id} invalid={Boolean(error)} aria-describedby={error ? `${id}-error` : undefined} />
        <FieldError id={`${id}-error`}>{error}</FieldError>
      </>
    );
  }

  it("labels the input and ties the error to it", () => {
    const { rerender } = render(<EmailField />);
    const input = screen.getByLabelText("E-mail");
    expect(input).not.toHaveAttribute("aria-invalid");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();

    rerender(<EmailField error="Please enter an e-mail address" />);
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input).toHaveAccessibleDescription("Please enter an e-mail address");
    expect(screen.getByRole("alert")).toHaveTextContent("Please enter an e-mail address");
  });
});

describe("Spinner and Badge", () => {
  it("a labelled spinner is a status; an unlabelled one is hidden", () => {
    const { container } = render(
      <>
        <Spinner label="Loading transcripts" />
        <Spinner />
      </>,
    );
    expect(screen.getByRole("status")).toHaveTextContent("Loading transcripts");
    expect(container.querySelectorAll('[aria-hidden="true"].spinner')).toHaveLength(2);
  });

  it("badge text carries the meaning", () => {
    render(<Badge variant="success">Completed</Badge>);
    expect(screen.getByText("Completed")).toHaveClass("badge", "badge-success");
  });
});

describe("Dialog", () => {
  function RenameDialog() {
    return (
      <Dialog>
        <DialogTrigger asChild>
          <Button>Rename</Button>
        </DialogTrigger>
        <DialogContent title="Rename transcript" description="Give the transcript a name you will recognise.">
          <DialogFooter>
            <DialogClose asChild>
              <Button>Cancel</Button>
            </DialogClose>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    );
  }

  it("is a named, described modal that Escape closes, returning focus to the trigger", async () => {
    render(<RenameDialog />);
    const trigger = screen.getByRole("button", { name: "Rename" });
    fireEvent.click(trigger);

    const dialog = await screen.findByRole("dialog", { name: "Rename transcript" });
    expect(dialog).toHaveAccessibleDescription("Give the transcript a name you will recognise.");
    expect(screen.getByRole("button", { name: "Close" })).toBeInTheDocument();

    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(trigger).toHaveFocus();
  });

  it("the close button closes it", async () => {
    render(<RenameDialog />);
    fireEvent.click(screen.getByRole("button", { name: "Rename" }));
    fireEvent.click(await screen.findByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });
});

describe("DropdownMenu", () => {
  it("opens from the keyboard and runs the chosen item", async () => {
    const onSelect = vi.fn();
    render(
      <DropdownMenu>
        <DropdownMenuTrigger asChild>
          <Button>Actions</Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent>
          <DropdownMenuItem onSelect={onSelect}>Export</DropdownMenuItem>
          <DropdownMenuItem danger>Delete</DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>,
    );
    fireEvent.keyDown(screen.getByRole("button", { name: "Actions" }), { key: "Enter" });
    const menu = await screen.findByRole("menu");
    expect(screen.getAllByRole("menuitem").map((item) => item.textContent)).toEqual(["Export", "Delete"]);
    fireEvent.click(screen.getByRole("menuitem", { name: "Export" }));
    expect(onSelect).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(menu).not.toBeInTheDocument());
  });
});
