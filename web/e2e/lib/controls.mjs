// Drives the UI kit's Select (Radix) and Combobox (Radix Popover + cmdk) in the browser
// journeys the way a person does: click the control, type, press Enter or click an option.

/** Opens the searchable Combobox named `label` inside `scope`, types `search` and presses Enter on the best match. */
export async function chooseInCombobox(page, scope, label, search) {
  const trigger = scope.getByRole("combobox", { name: label, exact: true });
  await trigger.click();
  const input = page.getByRole("combobox", { name: /^Search/ });
  await input.waitFor({ state: "visible" });
  await input.fill("");
  await page.keyboard.type(search);
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden" });
  return ((await trigger.textContent()) ?? "").trim();
}

/** Opens the Select named `label` inside `scope` and clicks the option whose name is `option`. */
export async function chooseInSelect(page, scope, label, option) {
  const trigger = scope.getByRole("combobox", { name: label, exact: true });
  await trigger.click();
  const listbox = page.getByRole("listbox");
  await listbox.getByRole("option", { name: option, exact: typeof option === "string" }).click();
  await listbox.waitFor({ state: "hidden" });
  return ((await trigger.textContent()) ?? "").trim();
}
