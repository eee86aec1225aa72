// The UI kit's accessibility contract: names, states and keyboard behaviour.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useId, useState } from "react";
import { describe, expect, it, vi } from "vitest";
import {
  Badge,
  Button,
  buttonClassName,
  Combobox,
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
  LoadingRegion,
  rankOption,
  Select,
  SelectContent,
  SelectItem,
  SelectTrigger,
  Skeleton,
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

const LANGUAGES = [
  { value: "auto", label: "Detect automatically", keywords: ["auto"] },
  { value: "bg", label: "Bulgarian (bg)", keywords: ["bg"] },
  { value: "de", label: "German (de)", keywords: ["de"] },
  { value: "en", label: "English (en)", keywords: ["en"] },
  { value: "es", label: "Spanish (es)", keywords: ["es"] },
  { value: "fr", label: "French (fr)", keywords: ["fr"] },
];

function LanguagePicker({ onChange = () => {} }: { onChange?: (value: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <>
      <Label htmlFor="lang">Language</Label>
      <Combobox
        id="lang"
        value={value}
        options={LANGUAGES}
        placeholder="Select a language"
        searchPlaceholder="Search languages…"
        listLabel="Languages"
        emptyText="No language matches."
        onValueChange={(next) => {
          setValue(next);
          onChange(next);
        }}
      />
    </>
  );
}

describe("Combobox", () => {
  it("ranks a code first, then names starting with the query, then words, then substrings; accents ignored", () => {
    expect(rankOption("de", "de", ["German (de)"])).toBe(1);
    expect(rankOption("en", "engl", ["English (en)"])).toBeGreaterThan(rankOption("bg", "gar", ["Bulgarian (bg)"]));
    expect(rankOption("fr", "fra", ["Français (fr)"])).toBeGreaterThan(0);
    expect(rankOption("fr", "français", ["Francais (fr)"])).toBeGreaterThan(0);
    expect(rankOption("bg", "ger", ["Bulgarian (bg)"])).toBe(0);
    expect(rankOption("sl", "ln", ["Slovenian (sl)"])).toBe(0);
    expect(rankOption("ln", "ln", ["Lingala (ln)"])).toBe(1);
    expect(rankOption("de", "", ["German (de)"])).toBe(1);
  });

  it("is a named combobox; ArrowDown opens the search, typing filters, Enter picks and focus returns", async () => {
    const onChange = vi.fn();
    render(<LanguagePicker onChange={onChange} />);
    const trigger = screen.getByRole("combobox", { name: "Language" });
    expect(trigger).toHaveAttribute("aria-expanded", "false");
    expect(trigger).toHaveTextContent("Select a language");
    fireEvent.keyDown(trigger, { key: "ArrowDown" });
    const search = await screen.findByRole("combobox", { name: "Search languages…" });
    expect(trigger).toHaveAttribute("aria-expanded", "true");
    await waitFor(() => expect(search).toHaveFocus());
    expect(screen.getByRole("listbox", { name: "Languages" })).toBeInTheDocument();
    expect(screen.getAllByRole("option")).toHaveLength(LANGUAGES.length);

    fireEvent.change(search, { target: { value: "ger" } });
    expect(screen.getAllByRole("option").map((o) => o.textContent)).toEqual(["German (de)"]);
    fireEvent.change(search, { target: { value: "zz" } });
    expect(screen.queryAllByRole("option")).toHaveLength(0);
    expect(screen.getByText("No language matches.")).toBeInTheDocument();

    fireEvent.change(search, { target: { value: "fr" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(onChange).toHaveBeenCalledWith("fr");
    await waitFor(() => expect(trigger).toHaveFocus());
    expect(trigger).toHaveTextContent("French (fr)");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("typing on the closed trigger starts the search; arrows move; Escape closes without a change", async () => {
    const onChange = vi.fn();
    render(<LanguagePicker onChange={onChange} />);
    const trigger = screen.getByRole("combobox", { name: "Language" });
    fireEvent.keyDown(trigger, { key: "e" });
    const search = await screen.findByRole("combobox", { name: "Search languages…" });
    expect(search).toHaveValue("e");
    fireEvent.keyDown(search, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("listbox")).toBeNull());
    expect(onChange).not.toHaveBeenCalled();
    expect(trigger).toHaveTextContent("Select a language");

    fireEvent.click(trigger);
    const again = await screen.findByRole("combobox", { name: "Search languages…" });
    expect(again).toHaveValue("");
    const first = screen.getAllByRole("option")[0]!;
    expect(first).toHaveAttribute("aria-selected", "true");
    fireEvent.keyDown(again, { key: "ArrowDown" });
    fireEvent.keyDown(again, { key: "ArrowDown" });
    fireEvent.keyDown(again, { key: "Enter" });
    expect(onChange).toHaveBeenCalledWith("de");
  });
});

describe("Select", () => {
  it("opens by keyboard, lists options with their description, skips disabled ones and sets the value", async () => {
    const onValueChange = vi.fn();
    render(
      <>
        <Label htmlFor="model">Model</Label>
        <Select defaultValue="base" onValueChange={onValueChange}>
          <SelectTrigger id="model" />
          <SelectContent>
            <SelectItem value="base">Whisper base</SelectItem>
            <SelectItem value="large" disabled description="Unavailable: GROQ_API_KEY is not set">
              Whisper large
            </SelectItem>
            <SelectItem value="tiny">Whisper tiny</SelectItem>
          </SelectContent>
        </Select>
      </>,
    );
    const trigger = screen.getByRole("combobox", { name: "Model" });
    expect(trigger).toHaveTextContent("Whisper base");
    fireEvent.keyDown(trigger, { key: "Enter" });
    await screen.findByRole("listbox");
    const large = screen.getByRole("option", { name: "Whisper large" });
    expect(large).toHaveAttribute("aria-disabled", "true");
    expect(large).toHaveTextContent("GROQ_API_KEY is not set");
    fireEvent.click(screen.getByRole("option", { name: "Whisper tiny" }));
    expect(onValueChange).toHaveBeenCalledWith("tiny");
    await waitFor(() => expect(trigger).toHaveTextContent("Whisper tiny"));
    expect(trigger).not.toHaveTextContent("GROQ");
  });
});

describe("LoadingRegion and Skeleton", () => {
  it("announces what loads while the skeleton blocks stay out of the accessibility tree", () => {
    render(
      <LoadingRegion label="Loading transcript…">
        <Skeleton width="50%" />
      </LoadingRegion>,
    );
    const region = screen.getByRole("status");
    expect(region).toHaveAttribute("aria-busy", "true");
    expect(region).toHaveTextContent("Loading transcript…");
    const block = region.querySelector(".skeleton");
    expect(block).toHaveAttribute("aria-hidden", "true");
    expect(block).toHaveStyle({ width: "50%" });
  });
});
