// The user's picture, or their initials when there is none or it fails to load (a provider
// URL that expired, a blocked host). Decorative: the surrounding control carries the name.
import { useState } from "react";
import { avatar, initials, type UserIdentity } from "../lib/session/user";

export function UserAvatar({ user }: { user: UserIdentity }) {
  const src = avatar(user);
  // Remembering which URL failed (not just "failed") lets a new picture try again.
  const [failedSrc, setFailedSrc] = useState<string>();
  const showImage = src !== undefined && src !== failedSrc;

  return (
    <span className="avatar" aria-hidden="true" data-testid="user-avatar">
      {showImage ? (
        <img src={src} alt="" referrerPolicy="no-referrer" onError={() => setFailedSrc(src)} />
      ) : (
        initials(user)
      )}
    </span>
  );
}
