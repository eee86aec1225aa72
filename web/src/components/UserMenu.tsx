// Who is signed in, and the way out. Radix provides the menu semantics: focus handling,
// arrow keys, Escape, and closing on outside click.
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Link } from "@tanstack/react-router";
import { useSignOut } from "../lib/session/sign-out";
import type { SessionUser } from "../lib/session/state";
import { displayName } from "../lib/session/user";
import { UserAvatar } from "./UserAvatar";

export function UserMenu({ user }: { user: SessionUser }) {
  const name = displayName(user);
  const signOut = useSignOut();

  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="user-menu-trigger" data-testid="user-menu">
        <UserAvatar user={user} />
        <span className="user-menu-label">{name ?? user.email}</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu" align="end" sideOffset={6}>
          <DropdownMenu.Label className="menu-identity">
            {name ? <span className="menu-identity-name">{name}</span> : null}
            <span className="menu-identity-email">{user.email}</span>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="menu-separator" />
          <DropdownMenu.Item className="menu-item" asChild>
            <Link to="/account" data-testid="user-menu-account">
              Account settings
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className="menu-item"
            data-testid="user-menu-sign-out"
            disabled={signOut.isPending}
            // Radix closes the menu on select; the request carries on without it.
            onSelect={() => signOut.mutate()}
          >
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
