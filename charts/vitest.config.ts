import { serviceTestProject } from "../services/platform/src/testing/vitest-project.js";

// The chart's tests: helm lint and template, kubeconform, the policy check, the service
// coverage, and deploy/migrate.ts and the KEDA query against a real PostgreSQL.
export default serviceTestProject("charts");
