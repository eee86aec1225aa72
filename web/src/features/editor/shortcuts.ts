// Keyboard shortcuts of the transcript page (decision 0021). Plain keys act only when focus is
// not in a text field; the ones with Ctrl/⌘ or Alt act everywhere, so a person typing a
// correction can still pause, seek and save.

export type ShortcutAction = "toggle" | "back" | "forward" | "slower" | "faster" | "next" | "previous" | "find" | "save" | "undo" | "redo" | "help";

export const SHORTCUTS: ReadonlyArray<{ action: ShortcutAction; keys: string[]; label: string }> = [
  { action: "toggle", keys: ["K", "Alt+K"], label: "Play / pause" },
  { action: "back", keys: ["J", "Alt+J"], label: "Back 5 seconds" },
  { action: "forward", keys: ["L", "Alt+L"], label: "Forward 5 seconds" },
  { action: "slower", keys: ["<", "Alt+,"], label: "Slower" },
  { action: "faster", keys: [">", "Alt+."], label: "Faster" },
  { action: "next", keys: ["N", "Alt+N"], label: "Next segment" },
  { action: "previous", keys: ["P", "Alt+P"], label: "Previous segment" },
  { action: "find", keys: ["/", "Ctrl+F"], label: "Find and replace" },
  { action: "save", keys: ["Ctrl+S"], label: "Save" },
  { action: "undo", keys: ["Ctrl+Z"], label: "Undo (outside a text field; inside, the field's own undo)" },
  { action: "redo", keys: ["Ctrl+Shift+Z"], label: "Redo (outside a text field)" },
  { action: "help", keys: ["?"], label: "This list" },
];

export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit", "range"].includes(target.type);
}

const alt: Record<string, ShortcutAction> = { KeyK: "toggle", KeyJ: "back", KeyL: "forward", Comma: "slower", Period: "faster", KeyN: "next", KeyP: "previous" };
const plain: Record<string, ShortcutAction> = { k: "toggle", j: "back", l: "forward", "<": "slower", ">": "faster", n: "next", p: "previous", "/": "find", "?": "help" };

/** The action a key press stands for, or undefined (then the browser handles it). */
export function shortcutFor(event: Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">, typing: boolean): ShortcutAction | undefined {
  const command = event.ctrlKey || event.metaKey;
  if (command && !event.altKey) {
    const key = event.key.toLowerCase();
    if (key === "s") return "save";
    if (key === "f") return "find";
    if (!typing && key === "z") return event.shiftKey ? "redo" : "undo";
    if (!typing && key === "y") return "redo";
    return undefined;
  }
  // event.code: Alt changes the character on macOS (Alt+K is "˚").
  if (event.altKey && !command) return alt[event.code];
  if (typing || event.altKey) return undefined;
  return plain[event.key] ?? plain[event.key.toLowerCase()];
}
