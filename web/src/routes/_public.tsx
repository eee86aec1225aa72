// Layout shared by the pages anyone can read.
import { createFileRoute, Link, Outlet } from "@tanstack/react-router";
import { ThemeSelect } from "../components/ThemeSelect";
import { publicSearchSchema } from "../lib/public-search";
import { brand } from "../lib/site-config";

export const Route = createFileRoute("/_public")({
  validateSearch: publicSearchSchema,
  component: PublicLayout,
});

function PublicLayout() {
  return (
    <div className="site">
      <header className="site-header">
        <div className="container site-header-inner">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            {brand}
          </Link>
          <nav aria-label="Main" className="site-nav">
            <Link to="/" activeOptions={{ exact: true, includeSearch: false }}>
              Home
            </Link>
            <Link to="/blog">Blog</Link>
            <Link to="/contact-us">Contact</Link>
          </nav>
        </div>
      </header>
      <main id="main-content" className="site-main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <div className="container site-footer-inner">
          <p>
            © {new Date().getFullYear()} {brand}
          </p>
          <nav aria-label="Legal" className="footer-nav">
            <Link to="/terms">Terms</Link>
            <Link to="/privacy">Privacy</Link>
            <Link to="/contact-us">Contact us</Link>
          </nav>
          <ThemeSelect />
        </div>
      </footer>
    </div>
  );
}
