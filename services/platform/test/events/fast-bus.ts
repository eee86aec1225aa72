// The tests' bus timings live with the testing helpers other packages use too.
export { fastBus } from "../../src/testing/event-bus.js";
