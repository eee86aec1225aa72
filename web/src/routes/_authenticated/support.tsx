import { createFileRoute } from "@tanstack/react-router";
import { MessageForm } from "../../components/MessageForm";
import { sendSupportMessage } from "../../lib/api/support";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_authenticated/support")({
  head: () => ({ meta: [{ title: pageTitle("Support") }] }),
  component: SupportPage,
});

function SupportPage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Support</h1>
        <p className="muted">Tell us what went wrong or what you need. We reply to the e-mail address of your account.</p>
      </header>
      <MessageForm
        fields={[
          { name: "subject", label: "Subject", required: true, maxLength: 200 },
          { name: "message", label: "Message", type: "textarea", required: true, maxLength: 5000 },
          { name: "transcriptionId", label: "Transcript ID (optional)", maxLength: 64 },
        ]}
        submitLabel="Send to support"
        confirmation="Thanks! Your message was sent. We'll reply to your account's e-mail address."
        send={(values) =>
          sendSupportMessage({ subject: values.subject ?? "", message: values.message ?? "", transcriptionId: values.transcriptionId })
        }
      />
    </div>
  );
}
