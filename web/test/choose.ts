// Drives the kit's Select and Combobox the way a keyboard user does, for the screen tests.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { expect } from "vitest";

/** Opens a Select (Radix) from its trigger with Enter and clicks the option named `option`. */
export async function chooseInSelect(trigger: HTMLElement, option: string | RegExp): Promise<void> {
  fireEvent.keyDown(trigger, { key: "Enter" });
  const listbox = await screen.findByRole("listbox");
  fireEvent.click(within(listbox).getByRole("option", { name: option }));
  // Radix hands focus back to the trigger a tick after closing; the next control waits for it.
  await waitFor(() => expect(trigger).toHaveFocus());
}

/** Opens a Combobox from its trigger, types `search` and picks the best match with Enter. */
export async function chooseInCombobox(trigger: HTMLElement, search: string): Promise<void> {
  fireEvent.click(trigger);
  const input = await screen.findByRole("combobox", { name: /^Search/ });
  await waitFor(() => expect(input).toHaveFocus());
  fireEvent.change(input, { target: { value: search } });
  fireEvent.keyDown(input, { key: "Enter" });
  await waitFor(() => expect(trigger).toHaveFocus());
}
