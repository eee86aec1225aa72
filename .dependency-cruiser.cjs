/**
 * Import boundaries between the workspace packages (docs/architecture.md, "Packages and
 * their boundaries"): code may use another package only through what that package exposes
 * (its package.json `exports`, reached by the package's name), never by a path into its
 * `src/` (or `test/`) files. Run by `npm run lint:imports`, part of `npm test`.
 */
const packages = "(proto|web|deploy/embedded|services/[^/]+)";

module.exports = {
  forbidden: [
    {
      name: "no-deep-import-across-packages",
      comment:
        "Another package's internals: import it by its name (@transcribe/<name>) and what its package.json exports; add the export there if it is meant to be used.",
      severity: "error",
      // A package's vitest.config.ts is loaded by Node itself, which cannot load a .ts file
      // reached through a package name: those reach the shared project helper by path.
      from: { path: `^${packages}/`, pathNot: "/vitest\\.config\\.ts$" },
      to: {
        path: `^${packages}/src/`,
        pathNot: "^$1/",
        // A relative path into it; by the package's name it resolves through its package.json `exports` only.
        dependencyTypes: ["local"], dependencyTypesNot: ["aliased"],
      },
    },
    {
      name: "no-deep-import-from-outside-packages",
      comment:
        "bench/, tests/, scripts/ and deploy/ scripts use a package through what it exports (@transcribe/<name>), not its src/ files.",
      severity: "error",
      from: { pathNot: `^(${packages}|node_modules)/` },
      to: { path: `^${packages}/src/`, dependencyTypes: ["local"], dependencyTypesNot: ["aliased"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["(^|/)node_modules/", "(^|/)dist/", "^web/build/", "(^|/)\\.data/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".d.ts"],
      mainFields: ["module", "main", "types"],
    },
    moduleSystems: ["es6", "cjs"],
  },
};
