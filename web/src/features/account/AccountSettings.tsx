// Account Settings (docs/requirements.md "Product", "States", "Validation"): profile, plan (billing), e-mail, password, linked accounts, active
// sessions and deletion, each a card talking to better-auth under /auth. Server messages
// ('Email is the same', 'Invalid password', "You can't unlink your last account", …) are
// shown as the server wrote them. Whatever changes the user invalidates the session query,
// so the header's user menu follows.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { toast } from "sonner";
import { UserAvatar } from "../../components/UserAvatar";
import { PlanSection } from "../billing/PlanSection";
import { ApiKeysSection, WebhooksSection } from "./DeveloperSections";
import { Section } from "./Section";
import { SpeechModelsSection } from "./SpeechModelsSection";
import { VoiceLibrarySection } from "./VoiceLibrarySection";
import { VocabularySection } from "./VocabularySection";
import {
  Badge,
  Button,
  Dialog,
  DialogClose,
  DialogContent,
  DialogFooter,
  FieldError,
  Input,
  Label,
} from "../../components/ui";
import { identifyUser } from "../../lib/analytics";
import { formatDateTime } from "../../lib/format";
import {
  changeEmail,
  changePassword,
  deleteUser,
  linkSocial,
  listAccounts,
  listSessions,
  providerLabel,
  revokeOtherSessions,
  revokeSession,
  unlinkAccount,
  updateUser,
} from "../../lib/session/auth-calls";
import { SESSION_QUERY_KEY, sessionQueryOptions } from "../../lib/session/query";
import type { SessionUser } from "../../lib/session/state";
import { socialProviders } from "../../lib/site-config";

const ACCOUNTS_QUERY_KEY = ["auth", "accounts"] as const;
const SESSIONS_QUERY_KEY = ["auth", "sessions"] as const;

function useRefreshSession() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
}

/** A success line under a form; role=status so screen readers announce it. */
function Done({ children, testId }: { children?: ReactNode; testId: string }) {
  if (!children) return null;
  return (
    <p className="notice" role="status" data-testid={testId}>
      {children}
    </p>
  );
}

export function AccountSettings({ user }: { user: SessionUser }) {
  return (
    <div className="stack account-settings">
      <ProfileSection user={user} />
      <PlanSection />
      <EmailSection user={user} />
      <PasswordSection />
      <LinkedAccountsSection />
      <SessionsSection />
      <VocabularySection />
      <ApiKeysSection />
      <WebhooksSection />
      <SpeechModelsSection />
      <VoiceLibrarySection />
      <DeleteAccountSection />
    </div>
  );
}

function ProfileSection({ user }: { user: SessionUser }) {
  const nameId = useId();
  const errorId = useId();
  const refreshSession = useRefreshSession();
  const [name, setName] = useState(user.name ?? "");
  const save = useMutation({
    mutationFn: (value: string) => updateUser({ name: value }),
    onSuccess: async () => {
      await refreshSession();
      toast.success("Name saved");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(name.trim());
  };

  return (
    <Section title="Profile" description="Your name appears in the menu at the top of every page." testId="account-profile">
      <div className="account-profile-identity">
        <UserAvatar user={user} />
        <span>{user.email}</span>
      </div>
      <form className="stack" onSubmit={submit}>
        <Label htmlFor={nameId}>Name</Label>
        <Input
          id={nameId}
          name="name"
          autoComplete="name"
          value={name}
          maxLength={255}
          onChange={(event) => setName(event.target.value)}
          invalid={Boolean(save.error)}
          aria-describedby={save.error ? errorId : undefined}
          data-testid="account-name"
        />
        <FieldError id={errorId}>{save.error?.message}</FieldError>
        <div className="button-row">
          <Button type="submit" variant="primary" loading={save.isPending} data-testid="account-name-save">
            Save name
          </Button>
        </div>
      </form>
    </Section>
  );
}

function EmailSection({ user }: { user: SessionUser }) {
  const emailId = useId();
  const errorId = useId();
  const refreshSession = useRefreshSession();
  const [newEmail, setNewEmail] = useState("");
  const [done, setDone] = useState<string>();
  const change = useMutation({
    mutationFn: (value: string) => changeEmail({ newEmail: value, callbackURL: "/account" }),
    onSuccess: async (_, value) => {
      setNewEmail("");
      // docs/requirements.md "States": a verified address confirms from the current inbox first; an unverified one
      // changes at once and the new address gets a verification mail.
      setDone(
        user.emailVerified
          ? `We sent a confirmation link to ${user.email}. Open it to move your account to ${value}.`
          : `Your e-mail address is now ${value}. We sent a verification link there.`,
      );
      await refreshSession();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    const value = newEmail.trim();
    if (value) change.mutate(value);
  };

  return (
    <Section title="E-mail" testId="account-email">
      <p>
        <span data-testid="account-current-email">{user.email}</span>{" "}
        {user.emailVerified ? <Badge variant="success">Verified</Badge> : <Badge variant="warning">Not verified</Badge>}
      </p>
      <form className="stack" onSubmit={submit}>
        <Label htmlFor={emailId}>New e-mail address</Label>
        <Input
          id={emailId}
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          value={newEmail}
          onChange={(event) => setNewEmail(event.target.value)}
          invalid={Boolean(change.error)}
          aria-describedby={change.error ? errorId : undefined}
          data-testid="account-new-email"
        />
        <FieldError id={errorId}>{change.error?.message}</FieldError>
        <Done testId="account-email-done">{done}</Done>
        <div className="button-row">
          <Button type="submit" loading={change.isPending} data-testid="account-email-save">
            Change e-mail
          </Button>
        </div>
      </form>
    </Section>
  );
}

function useAccounts() {
  return useQuery({ queryKey: ACCOUNTS_QUERY_KEY, queryFn: ({ signal }) => listAccounts(signal) });
}

function PasswordSection() {
  const accounts = useAccounts();
  const currentId = useId();
  const newId = useId();
  const errorId = useId();
  const queryClient = useQueryClient();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [revokeOthers, setRevokeOthers] = useState(true);
  const change = useMutation({
    mutationFn: changePassword,
    onSuccess: async () => {
      setCurrentPassword("");
      setNewPassword("");
      toast.success("Password changed");
      await queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
      await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
    },
  });

  if (accounts.isPending) return <Section title="Password" testId="account-password"><p className="muted">Loading…</p></Section>;
  if (accounts.error) {
    return (
      <Section title="Password" testId="account-password">
        <p role="alert">{accounts.error.message}</p>
      </Section>
    );
  }

  const hasPassword = accounts.data.some((account) => account.providerId === "credential");
  if (!hasPassword) {
    return (
      <Section title="Password" testId="account-password">
        <p className="muted" data-testid="account-set-password-unavailable">
          You sign in with an e-mailed link, so your account has no password. Setting a password isn't available on this
          server yet.
        </p>
      </Section>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ currentPassword, newPassword, revokeOtherSessions: revokeOthers });
  };
  return (
    <Section title="Password" testId="account-password">
      <form className="stack" onSubmit={submit}>
        <Label htmlFor={currentId}>Current password</Label>
        <Input
          id={currentId}
          type="password"
          autoComplete="current-password"
          required
          value={currentPassword}
          onChange={(event) => setCurrentPassword(event.target.value)}
          data-testid="account-current-password"
        />
        <Label htmlFor={newId}>New password</Label>
        <Input
          id={newId}
          type="password"
          autoComplete="new-password"
          required
          value={newPassword}
          onChange={(event) => setNewPassword(event.target.value)}
          invalid={Boolean(change.error)}
          aria-describedby={change.error ? errorId : undefined}
          data-testid="account-new-password"
        />
        <FieldError id={errorId}>{change.error?.message}</FieldError>
        <label className="checkbox">
          <input type="checkbox" checked={revokeOthers} onChange={(event) => setRevokeOthers(event.target.checked)} /> Sign out
          of every other device
        </label>
        <div className="button-row">
          <Button type="submit" loading={change.isPending} data-testid="account-password-save">
            Change password
          </Button>
        </div>
      </form>
    </Section>
  );
}

function LinkedAccountsSection() {
  const accounts = useAccounts();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  const unlink = useMutation({
    mutationFn: unlinkAccount,
    onMutate: () => setError(undefined),
    onSuccess: () => {
      toast.success("Account unlinked");
      return queryClient.invalidateQueries({ queryKey: ACCOUNTS_QUERY_KEY });
    },
    onError: (cause) => setError(cause.message),
  });
  const link = useMutation({
    mutationFn: (provider: string) => linkSocial({ provider, callbackURL: "/account", errorCallbackURL: "/account" }),
    onMutate: () => setError(undefined),
    // better-auth answers with the provider's authorisation URL; the browser goes there and
    // comes back to /account.
    onSuccess: (result) => {
      if (result.url) window.location.assign(result.url);
    },
    onError: (cause) => setError(cause.message),
  });

  const linked = new Set(accounts.data?.map((account) => account.providerId));
  const linkable = socialProviders.filter((provider) => !linked.has(provider));

  return (
    <Section title="Linked accounts" description="The ways you can sign in to this account." testId="account-linked">
      {accounts.isPending ? <p className="muted">Loading…</p> : null}
      {accounts.error ? <p role="alert">{accounts.error.message}</p> : null}
      {accounts.data ? (
        <ul className="account-list" aria-label="Linked accounts">
          {accounts.data.map((account) => (
            <li key={account.id} data-testid="linked-account" data-provider={account.providerId}>
              <span>
                {providerLabel(account.providerId)}
                <span className="muted small"> · linked {formatDateTime(account.createdAt)}</span>
              </span>
              <Button
                size="sm"
                variant="ghost"
                loading={unlink.isPending && unlink.variables?.accountId === account.id}
                onClick={() => unlink.mutate({ accountId: account.id })}
                aria-label={`Unlink ${providerLabel(account.providerId)}`}
              >
                Unlink
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {accounts.data && accounts.data.length === 0 ? (
        <p className="muted">You sign in with an e-mailed link; no other sign-in method is linked.</p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert" data-testid="account-linked-error">
          {error}
        </p>
      ) : null}
      {linkable.length > 0 ? (
        <div className="button-row">
          {linkable.map((provider) => (
            <Button
              key={provider}
              loading={link.isPending && link.variables === provider}
              onClick={() => link.mutate(provider)}
              data-testid={`link-${provider}`}
            >
              Link {providerLabel(provider)}
            </Button>
          ))}
        </div>
      ) : null}
    </Section>
  );
}

function SessionsSection() {
  const queryClient = useQueryClient();
  const current = useQuery(sessionQueryOptions).data?.session.token;
  const sessions = useQuery({ queryKey: SESSIONS_QUERY_KEY, queryFn: ({ signal }) => listSessions(signal) });
  const [error, setError] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
  const revokeOne = useMutation({
    mutationFn: revokeSession,
    onMutate: () => setError(undefined),
    onSuccess: () => {
      toast.success("Session signed out");
      return refresh();
    },
    onError: (cause) => setError(cause.message),
  });
  const revokeOthers = useMutation({
    mutationFn: revokeOtherSessions,
    onMutate: () => setError(undefined),
    onSuccess: () => {
      toast.success("Signed out everywhere else");
      return refresh();
    },
    onError: (cause) => setError(cause.message),
  });

  return (
    <Section title="Active sessions" description="Devices where you are signed in." testId="account-sessions">
      {sessions.isPending ? <p className="muted">Loading…</p> : null}
      {sessions.error ? <p role="alert">{sessions.error.message}</p> : null}
      {sessions.data ? (
        <ul className="account-list" aria-label="Active sessions">
          {sessions.data.map((session) => {
            const isCurrent = session.token === current;
            return (
              <li key={session.token} data-testid="active-session" data-current={isCurrent || undefined}>
                <span>
                  {session.userAgent || "Unknown device"}
                  {isCurrent ? (
                    <>
                      {" "}
                      <Badge variant="info">This device</Badge>
                    </>
                  ) : null}
                  <span className="muted small">
                    {" "}
                    · {session.ipAddress ? `${session.ipAddress} · ` : ""}signed in {formatDateTime(session.createdAt)}
                  </span>
                </span>
                {isCurrent ? null : (
                  <Button
                    size="sm"
                    variant="ghost"
                    loading={revokeOne.isPending && revokeOne.variables?.token === session.token}
                    onClick={() => revokeOne.mutate({ token: session.token })}
                  >
                    Sign out
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <Button loading={revokeOthers.isPending} onClick={() => revokeOthers.mutate()} data-testid="revoke-other-sessions">
          Sign out all other sessions
        </Button>
      </div>
    </Section>
  );
}

function DeleteAccountSection() {
  const passwordId = useId();
  const errorId = useId();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<string>();
  const remove = useMutation({
    mutationFn: (value: string) => deleteUser(value ? { password: value, callbackURL: "/" } : { callbackURL: "/" }),
    onSuccess: async (result) => {
      setPassword("");
      setOpen(false);
      if (result.message === "Verification email sent") {
        setDone("Verification email sent. Open the link in it to delete your account.");
        return;
      }
      // Deleted: nothing of this user may stay on screen or in the cache.
      await navigate({ to: "/" });
      queryClient.clear();
      identifyUser(null);
      toast.success("Your account was deleted");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.mutate(password);
  };

  return (
    <Section
      title="Delete account"
      description="Deletes your account, your transcripts and your recordings. This cannot be undone."
      testId="account-delete"
    >
      <Done testId="account-delete-done">{done}</Done>
      <Dialog
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (!next) remove.reset();
        }}
      >
        <div className="button-row">
          <Button variant="danger" onClick={() => setOpen(true)} data-testid="account-delete-open">
            Delete account…
          </Button>
        </div>
        <DialogContent
          title="Delete your account?"
          description="Enter your password to delete it now. Without a password we e-mail you a link that confirms the deletion."
        >
          <form className="stack" onSubmit={submit}>
            <Label htmlFor={passwordId}>Password (optional)</Label>
            <Input
              id={passwordId}
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              invalid={Boolean(remove.error)}
              aria-describedby={remove.error ? errorId : undefined}
              data-testid="account-delete-password"
            />
            <FieldError id={errorId}>{remove.error?.message}</FieldError>
            <DialogFooter>
              <DialogClose asChild>
                <Button variant="ghost">Cancel</Button>
              </DialogClose>
              <Button type="submit" variant="danger" loading={remove.isPending} data-testid="account-delete-confirm">
                Delete my account
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </Section>
  );
}
