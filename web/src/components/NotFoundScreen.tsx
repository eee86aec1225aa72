// Shown for any URL no route matches, and for routes that report a missing resource.
import { Link, useLocation, useRouter } from "@tanstack/react-router";
import { useEffect } from "react";
import { capture, NOT_FOUND_PAGE_VIEW_EVENT } from "../lib/analytics";
import { Button, buttonClassName } from "./ui/Button";

export function NotFoundScreen() {
  const router = useRouter();
  const path = useLocation({ select: (location) => location.pathname });

  // Broken inbound links only show up in analytics if the 404 itself is recorded.
  useEffect(() => {
    capture(NOT_FOUND_PAGE_VIEW_EVENT, { path });
  }, [path]);

  return (
    <section className="status-screen" aria-labelledby="not-found-title">
      <div className="status-card">
        <p className="status-code" aria-hidden="true">
          404
        </p>
        <h1 id="not-found-title">Page Not Found</h1>
        <p className="status-text">The page you're looking for doesn't exist or has been moved.</p>
        <div className="button-row">
          <Button onClick={() => router.history.back()}>Go back</Button>
          <Link to="/" className={buttonClassName({ variant: "primary" })}>
            Return to homepage
          </Link>
        </div>
      </div>
    </section>
  );
}
