import { serviceTestProject } from "../platform/src/testing/vitest-project.js";

export default serviceTestProject("webhooks");
