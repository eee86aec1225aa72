/**
 * The embedded mode's mail catcher: maildev in its own supervised process. Every mail the
 * notifier sends lands here instead of a real inbox: a web inbox on MAILDEV_WEB_PORT and
 * the JSON list at GET /email, SMTP on MAILDEV_SMTP_PORT, both on 127.0.0.1 only. Mail is
 * kept under MAILDEV_MAIL_DIRECTORY, so it survives a restart.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const MailDev = require("maildev") as new (config: Record<string, unknown>) => { listen(cb?: (err?: Error) => void): void };

const smtp = Number(process.env.MAILDEV_SMTP_PORT ?? 1025);
const web = Number(process.env.MAILDEV_WEB_PORT ?? 1080);
const mailDirectory = process.env.MAILDEV_MAIL_DIRECTORY;

// maildev stops itself (and exits 0) on SIGTERM/SIGINT, which is what the supervisor sends.
const maildev = new MailDev({ smtp, web, ip: "127.0.0.1", silent: true, ...(mailDirectory ? { mailDirectory } : {}) });
maildev.listen((error?: Error) => {
  if (error) {
    process.stderr.write(`mail catcher: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`mail catcher: SMTP on 127.0.0.1:${smtp}, inbox on http://127.0.0.1:${web} (JSON: /email)\n`);
});
