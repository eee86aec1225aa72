const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
const COLORS = [36, 32, 33, 35, 34, 96, 92, 93, 95, 94];
const OMIT = new Set(["level", "time", "msg", "service", "pid", "hostname"]);

/** A stable color per process name, so interleaved logs stay readable. */
export function colorFor(_name: string, index: number): (text: string) => string {
  const code = COLORS[index % COLORS.length];
  return process.stdout.isTTY ? (text) => `\u001b[${code}m${text}\u001b[0m` : (text) => text;
}

/**
 * One line of a child's output, prefixed with its name. pino JSON lines are shortened to
 * "time LEVEL message {fields}"; anything else (a stack trace, a tool's output) is kept.
 */
export function formatLine(prefix: string, line: string, pretty: boolean): string {
  if (!pretty || !line.startsWith("{")) return `${prefix} ${line}`;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    const time = typeof record.time === "string" ? record.time.slice(11, 23) : "";
    const level = LEVELS[record.level as number] ?? String(record.level ?? "");
    const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !OMIT.has(k)));
    const fields = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : "";
    return `${prefix} ${time} ${level.padEnd(5)} ${String(record.msg ?? "")}${fields}`;
  } catch {
    return `${prefix} ${line}`;
  }
}
