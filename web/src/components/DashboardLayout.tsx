// Frame of the signed-in area: where you are, where you can go, and who you are signed in as.
// Styles live next to it (DashboardLayout.css) and reuse the public layout's classes and
// theme variables from styles.css.
import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { brand } from "../lib/site-config";
import type { SessionUser } from "../lib/session/state";
import { ThemeSelect } from "./ThemeSelect";
import { UserMenu } from "./UserMenu";
import "./DashboardLayout.css";

export interface DashboardLayoutProps {
  user: SessionUser;
  children: ReactNode;
}

export function DashboardLayout({ user, children }: DashboardLayoutProps) {
  return (
    <div className="site">
      <header className="site-header dashboard-header">
        <div className="container site-header-inner">
          <Link to="/dashboard" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            {brand}
          </Link>
          <nav aria-label="Main" className="site-nav dashboard-nav">
            <Link to="/dashboard">Dashboard</Link>
            <Link to="/account">Account</Link>
            <Link to="/support">Support</Link>
          </nav>
          <UserMenu user={user} />
        </div>
      </header>
      <main id="main-content" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <div className="container site-footer-inner">
          <p>
            © {new Date().getFullYear()} {brand}
          </p>
          <nav aria-label="Legal" className="footer-nav">
            <Link to="/terms">Terms</Link>
            <Link to="/privacy">Privacy</Link>
          </nav>
          <ThemeSelect />
        </div>
      </footer>
    </div>
  );
}
