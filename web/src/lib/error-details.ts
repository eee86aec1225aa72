// Turns whatever was thrown into the text a user would paste into a bug report.
// Anything can be thrown in JavaScript, so non-Error values still produce something useful.

export interface ErrorDetails {
  name: string;
  message: string;
  stack?: string;
}

export function describeError(error: unknown): ErrorDetails {
  if (error instanceof Error) {
    return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  }
  if (typeof error === "string") return { name: "Error", message: error };
  try {
    return { name: "Error", message: JSON.stringify(error) ?? String(error) };
  } catch {
    return { name: "Error", message: String(error) };
  }
}

export function formatErrorDetails(error: unknown): string {
  const { name, message, stack } = describeError(error);
  const headline = `${name}: ${message}`;
  // A stack usually repeats the headline on its first line; avoid printing it twice.
  if (!stack) return headline;
  return stack.startsWith(headline) ? stack : `${headline}\n\n${stack}`;
}
