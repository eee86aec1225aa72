// Placeholder for magic-link sign-in. The form is laid out as it will be used so the page
// does not shift when a later issue connects it to /auth; until then it is disabled rather
// than pretending to send e-mail.
import { useId } from "react";

export interface SignInPanelProps {
  /** Where the visitor was headed before being asked to sign in. */
  redirect?: string | undefined;
}

export function SignInPanel({ redirect }: SignInPanelProps) {
  const emailId = useId();
  const noteId = useId();

  return (
    <section className="card sign-in" aria-labelledby={`${emailId}-title`}>
      <h2 id={`${emailId}-title`}>Sign in</h2>
      {redirect ? <p className="notice">Sign in to continue to the page you opened.</p> : null}
      <p className="muted">We'll e-mail you a link that signs you in. No password needed.</p>
      <form className="stack" onSubmit={(event) => event.preventDefault()} aria-describedby={noteId}>
        <fieldset disabled className="stack">
          <label htmlFor={emailId}>E-mail address</label>
          <input id={emailId} name="email" type="email" autoComplete="email" placeholder="you@example.com" required />
          <button type="submit" className="button button-primary button-block">
            Send sign-in link
          </button>
        </fieldset>
      </form>
      <p id={noteId} className="muted small">
        Sign-in is not enabled on this server yet.
      </p>
    </section>
  );
}
