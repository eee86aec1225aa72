// Magic-link sign-in (docs/requirements.md "Product", "States"): the visitor gives an e-mail address, the auth service
// mails a link whose callbackURL is where they were headed (the gate's `?redirect`, or the
// copy it saved), and following it signs them in and lands them there.
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { signInCallbackPath } from "../lib/auth-redirect";
import { sendMagicLink } from "../lib/session/auth-calls";
import { sessionQueryOptions } from "../lib/session/query";
import { toSessionState } from "../lib/session/state";
import { Button, buttonClassName, FieldError, Input, Label } from "./ui";

export interface SignInPanelProps {
  /** Where the visitor was headed before being asked to sign in. */
  redirect?: string | undefined;
  /** The `error` better-auth put on the URL when a magic link could not be used. */
  linkError?: string | undefined;
}

/** Words for the codes better-auth's magic-link verify redirects with. */
export function magicLinkErrorMessage(code: string): string {
  switch (code) {
    case "INVALID_TOKEN":
    case "EXPIRED_TOKEN":
      return "Invalid token: this sign-in link has already been used or has expired. Send yourself a new one.";
    case "new_user_signup_disabled":
      return "Signing up is disabled on this server.";
    default:
      return `Sign-in failed (${code}). Send yourself a new link.`;
  }
}

export function SignInPanel({ redirect, linkError }: SignInPanelProps) {
  // retryOnMount off: when the check just failed (the gate and the home page each asked
  // already), showing the form must not fire a third request.
  const session = toSessionState(useQuery({ ...sessionQueryOptions, retryOnMount: false }));
  const emailId = useId();
  const errorId = useId();
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string>();

  const send = useMutation({
    mutationFn: (address: string) =>
      // errorCallbackURL "/": a used or expired link comes back here with ?error= (shown
      // below); the destination stays saved for the next attempt.
      sendMagicLink({ email: address, callbackURL: signInCallbackPath(redirect), errorCallbackURL: "/" }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    if (!address) return;
    send.mutate(address, { onSuccess: () => setSentTo(address) });
  };

  const resend = () => {
    if (!sentTo) return;
    send.mutate(sentTo, { onSuccess: () => toast.success("We sent you a new link", { description: sentTo }) });
  };

  const differentEmail = () => {
    send.reset();
    setSentTo(undefined);
  };

  const titleId = `${emailId}-title`;

  if (session.status === "authenticated") {
    return (
      <section className="card sign-in stack" aria-labelledby={titleId} data-testid="sign-in-panel">
        <h2 id={titleId}>You're signed in</h2>
        <p className="muted">Signed in as {session.user.email}.</p>
        <Link to="/dashboard" className={buttonClassName({ variant: "primary", block: true })} data-testid="go-to-dashboard">
          Go to your dashboard
        </Link>
      </section>
    );
  }

  const errorMessage = send.error?.message;

  if (sentTo) {
    return (
      <section className="card sign-in stack" aria-labelledby={titleId} data-testid="sign-in-check-inbox">
        <h2 id={titleId}>Check your inbox</h2>
        <p>
          We sent a sign-in link to <strong data-testid="sign-in-sent-to">{sentTo}</strong>. Open it on this device to sign in.
        </p>
        <p className="muted small">The link works once and expires in a few minutes. Nothing there? Check your spam folder.</p>
        <FieldError id={errorId}>{errorMessage}</FieldError>
        <div className="button-row">
          <Button onClick={resend} loading={send.isPending} data-testid="sign-in-resend">
            Resend the link
          </Button>
          <Button variant="ghost" onClick={differentEmail} data-testid="sign-in-different-email">
            Use a different e-mail
          </Button>
        </div>
      </section>
    );
  }

  return (
    <section className="card sign-in" aria-labelledby={titleId} data-testid="sign-in-panel">
      <h2 id={titleId}>Sign in</h2>
      {linkError ? (
        <p className="notice" role="alert" data-testid="sign-in-link-error">
          {magicLinkErrorMessage(linkError)}
        </p>
      ) : redirect ? (
        <p className="notice">Sign in to continue to the page you opened.</p>
      ) : null}
      <p className="muted">We'll e-mail you a link that signs you in. No password needed.</p>
      <form className="stack" onSubmit={submit} noValidate={false} data-testid="sign-in-form">
        <Label htmlFor={emailId}>E-mail address</Label>
        <Input
          id={emailId}
          name="email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          invalid={Boolean(errorMessage)}
          aria-describedby={errorMessage ? errorId : undefined}
          data-testid="sign-in-email"
        />
        <FieldError id={errorId}>{errorMessage}</FieldError>
        <Button type="submit" variant="primary" block loading={send.isPending} data-testid="sign-in-submit">
          Send sign-in link
        </Button>
      </form>
    </section>
  );
}
