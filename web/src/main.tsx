import { StrictMode } from "react";
import { App } from "./app/App";
import { mountApp } from "./app/mount";
import { createAppQueryClient } from "./app/query-client";
import { createAppRouter } from "./app/router";
import "./styles.css";

mountApp(document.getElementById("root"), () => {
  const queryClient = createAppQueryClient();
  const router = createAppRouter(queryClient);
  return (
    <StrictMode>
      <App router={router} queryClient={queryClient} />
    </StrictMode>
  );
});
