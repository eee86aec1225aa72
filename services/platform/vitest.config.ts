import { serviceTestProject } from "./src/testing/vitest-project.js";

export default serviceTestProject("platform");
