import { createFileRoute, Link } from "@tanstack/react-router";
import { MessageForm } from "../../components/MessageForm";
import { sendContactMessage } from "../../lib/api/support";
import { brand, contactEmail, pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_public/contact-us")({
  head: () => ({ meta: [{ title: pageTitle("Contact Us") }] }),
  component: ContactPage,
});

function ContactPage() {
  return (
    <article className="container prose">
      <h1>Contact Us</h1>
      <p className="lead">Questions, problems or feedback about {brand}? We'd like to hear from you.</p>

      <h2>Send us a message</h2>
      <MessageForm
        fields={[
          { name: "name", label: "Name", required: true, maxLength: 200 },
          { name: "email", label: "Email", type: "email", required: true, maxLength: 320 },
          { name: "message", label: "Message", type: "textarea", required: true, maxLength: 5000 },
        ]}
        submitLabel="Send message"
        confirmation="Thanks! Your message was sent. We'll get back to you by e-mail."
        send={(values) => sendContactMessage({ name: values.name ?? "", email: values.email ?? "", message: values.message ?? "" })}
      />

      <h2>Other ways to reach us</h2>
      {contactEmail ? (
        <p>
          E-mail us at <a href={`mailto:${contactEmail}`}>{contactEmail}</a>. We usually reply within two working days.
        </p>
      ) : (
        <p>Contact the people who run this site through the channel they gave you when you got access.</p>
      )}

      <h2>When you report a problem</h2>
      <p>Including these helps us answer quickly:</p>
      <ul>
        <li>the e-mail address of your account,</li>
        <li>the name of the transcript or file, if the problem is about one,</li>
        <li>what you did, what you expected and what happened instead.</li>
      </ul>
      <p>Please do not send recordings by e-mail; we can find the file in your account.</p>

      <h2>Your data</h2>
      <p>
        For questions about what we keep and how to delete it, see the <Link to="/privacy">privacy policy</Link>.
      </p>
    </article>
  );
}
